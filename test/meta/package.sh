#!/bin/sh
# CPack's .deb holds the binary, every command's link, the completion files and every man
# page under /usr; unpacked into a temporary root, its softirqs runs (as root).
. "$(dirname "$0")/lib.sh"
BT_BUILD=${BT_BUILD:?BT_BUILD must point at the build directory}
command -v dpkg-deb >/dev/null || { echo "ok: no dpkg-deb here, nothing to check"; exit 0; }

(cd "$BT_BUILD" && cpack -G DEB -B "$T/pkg") >"$T/log" 2>&1 || { cat "$T/log" >&2; bad "cpack -G DEB failed"; finish package; }
deb=$(ls "$T"/pkg/bpftools_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || { bad "no bpftools_*.deb written"; finish package; }
dpkg-deb -c "$deb" | awk '{ s = $1 " " $6; if ($7 == "->") s = s " -> " $8; print s }' >"$T/contents"
dpkg-deb -f "$deb" Package Version Depends >"$T/control"
grep -q '^Package: bpftools$' "$T/control" || bad "package is not named bpftools"
grep -q '^Depends: .*libbpf' "$T/control" || file -L "$BPFTOOLS" | grep -q 'statically linked' ||
	bad "Depends does not name libbpf: $(grep Depends "$T/control")"
# Every shared library the binary needs belongs to a package that Depends names (what a
# clean install relies on; scripts/test-deb installs it on a fresh Debian 12 with apt).
owner() {
	for f in "$1" "$(readlink -f "$1")"; do
		for g in "$f" "/usr$f" "${f#/usr}"; do
			o=$(dpkg -S "$g" 2>/dev/null | head -1 | cut -d: -f1)
			[ -n "$o" ] && { echo "$o"; return; }
		done
	done
}
if command -v dpkg >/dev/null && ! file -L "$BPFTOOLS" | grep -q 'statically linked'; then
	for lib in $(objdump -p "$BPFTOOLS" | awk '$1 == "NEEDED" { print $2 }'); do
		path=$(ldd "$BPFTOOLS" | awk -v l="$lib" '$1 == l { print $3 }')
		pkg=$(owner "$path")
		[ -n "$pkg" ] || { bad "no package owns $lib ($path)"; continue; }
		sed -n 's/^Depends: //p' "$T/control" | tr ',' '\n' | awk '{ print $1 }' | grep -qxF "$pkg" ||
			bad "Depends lacks $pkg (for $lib): $(grep Depends "$T/control")"
		ndeps=$((${ndeps:-0} + 1))
	done
fi

has() {
	grep -q -- "$1" "$T/contents" || bad "the .deb lacks $2"
}
has '^-rwxr-xr-x ./usr/sbin/bpftools$' "/usr/sbin/bpftools"
has ' ./usr/share/bash-completion/completions/bpftools$' "the bash completion"
has ' ./usr/share/zsh/site-functions/_bpftools$' "the zsh completion"
has ' ./usr/share/fish/vendor_completions.d/bpftools.fish$' "the fish completion"
has ' ./usr/share/man/man8/bpftools.8$' "the index man page bpftools.8"
n=0
for c in $(commands); do
	n=$((n + 1))
	has "^l[rwx-]* ./usr/sbin/$c -> bpftools\$" "the link /usr/sbin/$c"
	has "^-[rwx-]* ./usr/share/man/man8/$c.8\$" "the man page of $c"
	has "^l[rwx-]* ./usr/share/bash-completion/completions/$c -> bpftools\$" "the bash completion link of $c"
done

# Unpacked as dpkg would install it, the links and the binary work from there.
dpkg -x "$deb" "$T/root" || bad "dpkg -x fails"
"$T/root/usr/sbin/softirqs" --help 2>&1 | grep -q '^Usage: softirqs ' || bad "unpacked softirqs --help"
MANWIDTH=80 man -l "$T/root/usr/share/man/man8/softirqs.8" 2>/dev/null | grep -q '^NAME' || bad "unpacked softirqs.8 does not render"
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	timeout -s INT 20 "$T/root/usr/sbin/softirqs" 1 1 >"$T/out" 2>"$T/err" || bad "unpacked softirqs 1 1 fails: $(cat "$T/err")"
	grep -q '^SOFTIRQ  *TOTAL_usecs$' "$T/out" || bad "unpacked softirqs 1 1 printed no table: $(cat "$T/out")"
	ran=", softirqs 1 1 ran from it"
fi
finish "package: $(basename "$deb") holds the binary, $n links and man pages, completions; Depends covers its ${ndeps:-0} libraries${ran:-}"
