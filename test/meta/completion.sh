#!/bin/sh
# The three completion scripts are valid shell, and complete every command and every option.
. "$(dirname "$0")/lib.sh"

for sh in bash zsh fish; do
	"$BPFTOOLS" completion $sh >"$T/$sh" || bad "completion $sh exits non-zero"
done
bash -n "$T/bash" || bad "bash completion has a syntax error"
if command -v zsh >/dev/null; then zsh -n "$T/zsh" || bad "zsh completion has a syntax error"; fi
if command -v fish >/dev/null; then fish -n "$T/fish" || bad "fish completion has a syntax error"; fi

for c in $(commands); do
	grep -qE "^complete -F _bpftools bpftools( [a-z0-9_]+)* $c( |\$)" "$T/bash" || bad "bash: no link completion for $c"
	grep -qE "^	$c\) " "$T/bash" || bad "bash: no options for $c"
	grep -q "'$c:" "$T/zsh" || bad "zsh: $c is not offered"
	grep -q "^complete -c bpftools -n __fish_use_subcommand -a $c " "$T/fish" || bad "fish: $c is not offered"
	for o in $(long_options "$c"); do
		grep -E "^	$c\) " "$T/bash" | grep -q -- " $o" || bad "bash: $c lacks $o"
		grep -E "^	$c\) " "$T/zsh" | grep -q -- "'$o:" || bad "zsh: $c lacks $o"
		grep -q -- "^complete -c $c .*-l ${o#--}" "$T/fish" || bad "fish: $c lacks $o"
	done
done

# The bash function really completes: simulate "bpftools so<TAB>" and "softirqs --ti<TAB>".
cat >"$T/drive.bash" <<DRIVE
. "$T/bash"
COMP_WORDS=(bpftools "$(commands | head -1 | cut -c1-3)"); COMP_CWORD=1; _bpftools
printf '%s\n' "\${COMPREPLY[@]}"
DRIVE
first=$(commands | head -1)
bash "$T/drive.bash" | grep -qx "$first" || bad "bash completion does not complete '$first'"
"$BPFTOOLS" completion tcsh >/dev/null 2>"$T/err" && bad "completion tcsh should fail"
grep -q "unknown shell 'tcsh'" "$T/err" || bad "completion tcsh: no clear error"
finish "completion scripts cover every command and option"
