#!/bin/sh
# Multi-call dispatch: links behave like "bpftools CMD", --install makes them, unknown names
# fail with the documented message and exit 2, and bad options never crash.
. "$(dirname "$0")/lib.sh"

"$BPFTOOLS" --version | grep -Eq '^bpftools [0-9]+\.[0-9]+\.[0-9]+ ' || bad "--version"
"$BPFTOOLS" --help | grep -q '^Usage: bpftools COMMAND' || bad "--help"

"$BPFTOOLS" --install "$T/bin" 2>/dev/null && bad "--install into a missing dir should fail"
mkdir "$T/bin"
"$BPFTOOLS" --install "$T/bin" || bad "--install exits non-zero"
for c in $(commands); do
	if [ "$c" = features ]; then # BT_NO_LINK: not a BCC tool, no name of its own
		[ -e "$T/bin/$c" ] && bad "--install made a link named $c"
		continue
	fi
	[ -L "$T/bin/$c" ] || { bad "--install made no link for $c"; continue; }
	"$T/bin/$c" --help >"$T/via-link" 2>&1
	"$BPFTOOLS" "$c" --help >"$T/via-cmd" 2>&1
	cmp -s "$T/via-link" "$T/via-cmd" || bad "link '$c' differs from 'bpftools $c'"
	"$T/bin/$c" --definitely-not-an-option >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || bad "$c --definitely-not-an-option exits $rc, not 2"
	head -1 "$T/err" | grep -q "^$c: " || bad "$c: bad option error does not name the tool"
	# With --json anywhere, argp's own complaints are the JSON error object too.
	if long_options "$c" | grep -qx -- --json; then
		"$T/bin/$c" --definitely-not-an-option --json >/dev/null 2>"$T/err"
		rc=$?
		[ $rc = 2 ] || bad "$c --definitely-not-an-option --json exits $rc, not 2"
		printf '%s\n' "{\"level\": \"error\", \"command\": \"$c\", \"message\": \"unrecognized option '--definitely-not-an-option'\"}" |
			cmp -s - "$T/err" || bad "$c --json: argp's error is not one JSON line: $(cat "$T/err")"
	fi
done
"$BPFTOOLS" --install "$T/bin" 2>"$T/err" || bad "--install is not idempotent"
# (another program of a command's name on this machine's PATH is named each time)
grep -v "another program, are both on PATH" "$T/err" >"$T/err2" &&
	bad "--install again said: $(cat "$T/err2")"
# The opt-in for plain names says what it does not replace, or shadows, and replaces only links
# to a bpftools binary: another program in DIR, a link to one, another on PATH.
mkdir "$T/opt" "$T/other"
printf '#!/bin/sh\n' >"$T/other/softirqs"
chmod 755 "$T/other/softirqs"
cp "$T/other/softirqs" "$T/opt/hardirqs"
ln -s /bin/true "$T/opt/vfsstat"
ln -s /gone/bpftools "$T/opt/opensnoop"
PATH="$T/other:$PATH" "$BPFTOOLS" --install "$T/opt" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] || bad "--install over other programs exits $rc, not 1"
grep -qxF "bpftools: '$T/opt/hardirqs' exists and is not a link; left alone" "$T/err" ||
	bad "--install: no word of the program left alone: $(cat "$T/err")"
grep -qxF "bpftools: '$T/opt/vfsstat' is a link to '/bin/true', not bpftools; left alone" "$T/err" ||
	bad "--install: no word of the link left alone: $(cat "$T/err")"
grep -qxF "bpftools: '$T/opt/opensnoop' replaced (it was a link to '/gone/bpftools')" "$T/err" ||
	bad "--install: no word of the old link replaced: $(cat "$T/err")"
grep -qF "bpftools: '$T/opt/softirqs' and '$T/other/softirqs', another program, are both on PATH" "$T/err" ||
	bad "--install: no word of the program it shadows: $(cat "$T/err")"
[ "$(readlink "$T/opt/vfsstat")" = /bin/true ] && [ ! -L "$T/opt/hardirqs" ] &&
	[ -L "$T/opt/softirqs" ] && "$T/opt/opensnoop" --help 2>&1 | grep -q '^Usage: opensnoop' ||
	bad "--install replaced the wrong files"

"$BPFTOOLS" nosuchtool >/dev/null 2>"$T/err"
rc=$?
[ $rc = 2 ] || bad "unknown command exits $rc, not 2"
grep -qx "bpftools: 'nosuchtool' is not a bpftools command; see 'bpftools --list'" "$T/err" ||
	bad "unknown command message: $(cat "$T/err")"
first=$(commands | head -1)
prefix=$(echo "$first" | cut -c1-3)
"$BPFTOOLS" "$prefix" >/dev/null 2>&1 && bad "prefix '$prefix' must not match '$first'"
ln -s "$BPFTOOLS" "$T/bogus"
"$T/bogus" >/dev/null 2>&1
[ $? = 2 ] || bad "a link with an unknown name and no arguments must exit 2"
# Renamed or copied, the binary is still bpftools: --list, and CMD as the first argument.
cp "$BPFTOOLS" "$T/bpftools-static"
ln -s "$BPFTOOLS" "$T/bpftools.new"
for b in "$T/bpftools-static" "$T/bpftools.new" "$T/bogus"; do
	"$b" --list >"$T/list" 2>"$T/err" || bad "$(basename "$b") --list exits $?: $(cat "$T/err")"
	"$BPFTOOLS" --list | cmp -s - "$T/list" || bad "$(basename "$b") --list differs"
	"$b" "$first" --help >"$T/via-renamed" 2>&1
	"$BPFTOOLS" "$first" --help | cmp -s - "$T/via-renamed" ||
		bad "$(basename "$b") $first --help differs from bpftools $first --help"
done
"$BPFTOOLS" >/dev/null 2>&1
[ $? = 2 ] || bad "bpftools without a command must exit 2"
# Bytes from argv reach the terminal as \xNN, never raw: an escape sequence typed as a command,
# an option, a shell name, or carried by the name of a link.
esc=$(printf '\033[31m')
check_escaped() {
	what=$1
	shift
	"$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || bad "$what exits $rc, not 2"
	grep -q "$(printf '\033')" "$T/err" && bad "$what: a raw ESC byte on stderr"
	[ -n "$want" ] && ! grep -qxF "$want" "$T/err" && bad "$what: not '$want': $(head -1 "$T/err")"
}
want="bpftools: '\\x1b[31m' is not a bpftools command; see 'bpftools --list'"
check_escaped "an escape as the command" "$BPFTOOLS" "$esc"
want="bpftools: unknown option '-\\x1b[31m'"
check_escaped "an escape as an option" "$BPFTOOLS" "-$esc"
want="bpftools: unknown shell '\\x1b[31m'; expected bash, zsh or fish"
check_escaped "an escape as the shell" "$BPFTOOLS" completion "$esc"
want=
ln -s "$BPFTOOLS" "$T/x$esc"
check_escaped "a link named with an escape" "$T/x$esc"
# Unprivileged: one clear line and exit 1, before anything is loaded.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	cp "$BPFTOOLS" "$T/bpftools" && chmod 755 "$T" "$T/bpftools"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$T/bpftools" "$first" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 1 ] || bad "unprivileged $first exits $rc, not 1"
	grep -qx "$first: needs root, or the CAP_BPF and CAP_PERFMON capabilities" "$T/err" ||
		bad "unprivileged message: $(cat "$T/err")"
fi
finish "dispatch through links and names"
