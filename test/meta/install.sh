#!/bin/sh
# `cmake --install` into a temporary prefix gives, for every command in the registry: a link
# in lib/bpftools/bin/ (not sbin/, where other packages have the names) that runs it, its bash and fish completion where those shells load it by name, zsh's
# #compdef entry, and a man page that renders and documents every long option of its --help;
# and the index page bpftools.8 and bpftools-flamegraph.8.
. "$(dirname "$0")/lib.sh"
BT_BUILD=${BT_BUILD:?BT_BUILD must point at the build directory}

P=$T/prefix
cmake --install "$BT_BUILD" --prefix "$P" >"$T/log" 2>&1 || { cat "$T/log" >&2; bad "cmake --install failed"; finish install; }

[ -x "$P/sbin/bpftools" ] || bad "no sbin/bpftools"
[ "$(ls "$P/sbin")" = bpftools ] || bad "sbin/ holds more than bpftools: $(ls "$P/sbin" | tr '\n' ' ')"
"$P/sbin/bpftools" --list >"$T/list" || bad "installed bpftools --list fails"
bashc=$P/share/bash-completion/completions
zshc=$P/share/zsh/site-functions/_bpftools
fishc=$P/share/fish/vendor_completions.d
for sh in bash zsh fish; do
	"$BPFTOOLS" completion $sh >"$T/want.$sh"
done
cmp -s "$bashc/bpftools" "$T/want.bash" || bad "installed bash completion differs from 'bpftools completion bash'"
cmp -s "$zshc" "$T/want.zsh" || bad "installed _bpftools differs from 'bpftools completion zsh'"
cmp -s "$fishc/bpftools.fish" "$T/want.fish" || bad "installed fish completion differs from 'bpftools completion fish'"
head -1 "$zshc" >"$T/compdef"

n=0
for c in $(commands); do
	n=$((n + 1))
	[ "$(readlink "$P/lib/bpftools/bin/$c")" = ../../../sbin/bpftools ] ||
		bad "lib/bpftools/bin/$c is not a link to ../../../sbin/bpftools"
	"$P/lib/bpftools/bin/$c" --help 2>&1 | grep -q "^Usage: $c " ||
		bad "lib/bpftools/bin/$c --help does not run $c"
	[ "$(readlink "$bashc/$c")" = bpftools ] || bad "bash: no completion link for $c"
	[ "$(readlink "$fishc/$c.fish")" = bpftools.fish ] || bad "fish: no completion link for $c"
	grep -qE "^#compdef .* $c( |\$)" "$T/compdef" || bad "zsh: #compdef does not name $c"

	page=$P/share/man/man8/$c.8
	[ -f "$page" ] || { bad "no man page share/man/man8/$c.8"; continue; }
	groff -man -Tutf8 -ww -z "$page" 2>"$T/warn" || bad "$c.8: groff fails"
	[ -s "$T/warn" ] && bad "$c.8: groff warns: $(head -3 "$T/warn")"
	MANWIDTH=200 man -l "$page" 2>/dev/null | col -b >"$T/man" || bad "man -l $c.8 fails"
	grep -q "^NAME" "$T/man" && grep -q "^SYNOPSIS" "$T/man" && grep -q "^DESCRIPTION" "$T/man" &&
		grep -q "^OPTIONS" "$T/man" || bad "$c.8 lacks NAME, SYNOPSIS, DESCRIPTION or OPTIONS"
	summary=$(awk -v c="$c" '$1 == c { sub(/^[^ ]+ +/, ""); print }' "$T/list")
	grep -qF -- "$c - $summary" "$T/man" || bad "$c.8: NAME line is not '$c - $summary'"
	grep -q "^ *$c \[OPTION" "$T/man" || bad "$c.8: SYNOPSIS lacks the usage line"
	for o in $(long_options "$c"); do
		grep -q -- "$o" "$T/man" || bad "$c.8 does not document $o"
	done
	# The description opens with the first paragraph of docs/NAME.md.
	first=$(awk 'NR > 1 && NF { print; exit }' "$BT_SRC/docs/$c.md" | sed 's/`//g' | tr -s ' \t' ' ' | cut -c1-30)
	tr -s ' \t\n' ' ' <"$T/man" | grep -qF -- "$first" || bad "$c.8: description does not start from docs/$c.md ('$first')"
done
[ "$n" -gt 0 ] || bad "no commands listed"

# The shells find them where they are installed: fish autoloads a link's file by its name,
# zsh's compinit reads the #compdef line from site-functions.
if command -v fish >/dev/null; then
	for c in $(commands); do
		o=$(long_options "$c" | head -1)
		[ -n "$o" ] || continue
		echo "complete -C '$c $(echo "$o" | cut -c1-4)'"
	done >"$T/fish-in"
	PATH=$P/sbin:$P/lib/bpftools/bin:$PATH XDG_DATA_DIRS=$P/share HOME=$T fish "$T/fish-in" >"$T/fish-out" 2>&1
	for c in $(commands); do
		o=$(long_options "$c" | head -1)
		[ -n "$o" ] || continue
		grep -q -- "^$o" "$T/fish-out" || bad "fish, installed: '$c $(echo "$o" | cut -c1-4)<TAB>' does not offer $o"
	done
fi
if command -v zsh >/dev/null; then
	HOME=$T zsh -fc "fpath=($P/share/zsh/site-functions \$fpath); autoload -Uz compinit; compinit -u -D
		for c in bpftools $(commands | tr '\n' ' '); do print -r -- \$c \${_comps[\$c]}; done" >"$T/zsh-out" 2>&1
	for c in bpftools $(commands); do
		grep -qx "$c _bpftools" "$T/zsh-out" || bad "zsh, installed: compinit does not complete $c with _bpftools"
	done
fi

# The index page names every command's page; the flamegraph subcommand has its own.
for page in bpftools bpftools-flamegraph; do
	[ -f "$P/share/man/man8/$page.8" ] || { bad "no man page $page.8"; continue; }
	groff -man -Tutf8 -ww -z "$P/share/man/man8/$page.8" 2>"$T/warn" || bad "$page.8: groff fails"
	[ -s "$T/warn" ] && bad "$page.8: groff warns: $(head -3 "$T/warn")"
done
MANWIDTH=200 man -l "$P/share/man/man8/bpftools.8" 2>/dev/null | col -b >"$T/index"
for c in $(commands); do
	grep -q "^ *$c(8)\$" "$T/index" || bad "bpftools.8 does not list $c(8)"
done
MANWIDTH=200 man -l "$P/share/man/man8/bpftools-flamegraph.8" 2>/dev/null | col -b >"$T/fg"
grep -q "^ *bpftools flamegraph \[OPTION" "$T/fg" || bad "bpftools-flamegraph.8: no synopsis"
for o in $("$BPFTOOLS" flamegraph --help | grep -oE -- '--[a-z][a-z0-9_-]*' | sort -u | grep -vxE -- '--(help|usage)'); do
	grep -q -- "$o" "$T/fg" || bad "bpftools-flamegraph.8 does not document $o"
done
finish "install: links, completions and man pages for $n commands"
