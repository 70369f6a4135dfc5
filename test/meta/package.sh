#!/bin/sh
# CPack's .deb holds the binary, every command's link (in /usr/lib/bpftools/bin), the
# completion files and every man page under /usr; no path of it is one of Debian's
# libbpf-tools (so both install side by side), Installed-Size is the files' size and Depends
# names each package once; unpacked into a temporary root, its softirqs runs (as root).
. "$(dirname "$0")/lib.sh"
BT_BUILD=${BT_BUILD:?BT_BUILD must point at the build directory}
command -v dpkg-deb >/dev/null || { echo "ok: no dpkg-deb here, nothing to check"; exit 0; }

(cd "$BT_BUILD" && cpack -G DEB -B "$T/pkg") >"$T/log" 2>&1 || { cat "$T/log" >&2; bad "cpack -G DEB failed"; finish package; }
deb=$(ls "$T"/pkg/bpftools_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || { bad "no bpftools_*.deb written"; finish package; }
dpkg-deb -c "$deb" | awk '{ s = $1 " " $6; if ($7 == "->") s = s " -> " $8; print s }' >"$T/contents"
dpkg-deb -f "$deb" Package Version Depends Installed-Size >"$T/control"
grep -q '^Package: bpftools$' "$T/control" || bad "package is not named bpftools"
# Each package once in Depends (CPack 3.25 appended dpkg-shlibdeps' libbpf1 to ours).
sed -n 's/^Depends: //p' "$T/control" | tr ',' '\n' | awk '{ print $1 }' | sort | uniq -d >"$T/twice"
[ -s "$T/twice" ] && bad "Depends names $(cat "$T/twice") more than once: $(grep Depends "$T/control")"
# Installed-Size in KiB: the files' sizes rounded up, a KiB per link and directory, as
# dpkg-gencontrol counts (CPack 3.25 counted each link at the binary's size: 39345 for 2694).
want=$(dpkg-deb -c "$deb" | awk '{ n++; if ($1 ~ /^-/) k += int(($3 + 1023) / 1024); else k++ }
	END { print k - 1 }') # "./" is not counted
got=$(sed -n 's/^Installed-Size: //p' "$T/control")
[ "$got" = "$want" ] || bad "Installed-Size is $got KiB; its files make $want"
grep -q '^Depends: .*libbpf' "$T/control" || file -L "$BPFTOOLS" | grep -q 'statically linked' ||
	bad "Depends does not name libbpf: $(grep Depends "$T/control")"
# The exporter's HTTP libraries are loaded by it alone, when it starts a server: not linked
# into every command (lib/run/bt_http_libs.h), but named in Depends for it.
if ! file -L "$BPFTOOLS" | grep -q 'statically linked'; then
	linked=$(objdump -p "$BPFTOOLS" | awk '$1 == "NEEDED" && $2 ~ /microhttpd|gnutls|libcrypt/ { print $2 }')
	[ -z "$linked" ] || bad "the binary links $linked: every command would load it"
	for p in libmicrohttpd12 libgnutls30 libcrypt1; do
		grep -q "^Depends: .*$p" "$T/control" || bad "Depends does not name $p (the exporter's server)"
	done
fi
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
# /usr/sbin holds bpftools alone: the tools' names there belong to other packages.
grep ' ./usr/sbin/.' "$T/contents" | grep -v ' ./usr/sbin/bpftools$' >"$T/sbin" &&
	bad "the .deb puts more than bpftools in /usr/sbin: $(head -3 "$T/sbin" | tr '\n' ' ')"

# No path in common with Debian's libbpf-tools, so dpkg installs both: its file list from
# dpkg -L when it is installed, else from its .deb (apt-get download), else the copy of
# 0.26.0+ds-1 (Debian 12) beside this test.
if dpkg -L libbpf-tools >"$T/lbt" 2>/dev/null; then
	lbt="installed libbpf-tools"
elif (cd "$T" && apt-get download libbpf-tools) >/dev/null 2>&1 &&
	dpkg-deb -c "$T"/libbpf-tools_*.deb | awk '{ print substr($6, 2) }' >"$T/lbt"; then
	lbt="libbpf-tools $(dpkg-deb -f "$T"/libbpf-tools_*.deb Version)"
else
	cp "$BT_SRC/test/meta/libbpf-tools.list" "$T/lbt"
	lbt="libbpf-tools 0.26.0+ds-1 (test/meta/libbpf-tools.list)"
fi
grep -q '^/usr/sbin/biolatency$' "$T/lbt" || bad "the libbpf-tools file list has no /usr/sbin/biolatency"
awk '{ p = substr($2, 2); sub("/$", "", p); if ($1 !~ /^d/) print p }' "$T/contents" | sort >"$T/ours"
sed 's:/$::' "$T/lbt" | sort -u | comm -12 "$T/ours" - >"$T/both"
[ -s "$T/both" ] && bad "paths also in $lbt: $(tr '\n' ' ' <"$T/both")"
has ' ./usr/share/bash-completion/completions/bpftools$' "the bash completion"
has ' ./usr/share/zsh/site-functions/_bpftools$' "the zsh completion"
has ' ./usr/share/fish/vendor_completions.d/bpftools.fish$' "the fish completion"
has ' ./usr/share/man/man8/bpftools.8$' "the index man page bpftools.8"
has '^-[rwx-]* ./usr/lib/systemd/system/bpftools-exporter.service$' "the exporter's systemd unit"
grep -q ' ./etc/systemd/' "$T/contents" && bad "the package enables a unit (./etc/systemd/)"
n=0
for c in $(commands); do
	n=$((n + 1))
	has "^l[rwx-]* ./usr/lib/bpftools/bin/$c -> ../../../sbin/bpftools\$" "the link /usr/lib/bpftools/bin/$c"
	has "^-[rwx-]* ./usr/share/man/man8/$c.8\$" "the man page of $c"
	has "^l[rwx-]* ./usr/share/bash-completion/completions/$c -> bpftools\$" "the bash completion link of $c"
done

# Unpacked as dpkg would install it, the links and the binary work from there.
dpkg -x "$deb" "$T/root" || bad "dpkg -x fails"
"$T/root/usr/lib/bpftools/bin/softirqs" --help 2>&1 | grep -q '^Usage: softirqs ' || bad "unpacked softirqs --help"
"$T/root/usr/sbin/bpftools" softirqs --help 2>&1 | grep -q '^Usage: softirqs ' || bad "unpacked bpftools softirqs --help"
MANWIDTH=80 man -l "$T/root/usr/share/man/man8/softirqs.8" 2>/dev/null | grep -q '^NAME' || bad "unpacked softirqs.8 does not render"
# The unit as systemd reads it (systemd-analyze needs no running systemd): valid, and as
# confined as docs/exporter.md says.
if command -v systemd-analyze >/dev/null; then
	unit=$T/root/usr/lib/systemd/system/bpftools-exporter.service
	# the binary where it was unpacked; its man page is not installed here
	sed "s|/usr/sbin/bpftools|$T/root/usr/sbin/bpftools|" "$unit" >"$T/bpftools-exporter.service"
	systemd-analyze verify "$T/bpftools-exporter.service" 2>&1 |
		grep -v "Command 'man exporter(8)' failed" >"$T/verify"
	[ -s "$T/verify" ] && bad "systemd-analyze verify: $(cat "$T/verify")"
	grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON' "$unit" || bad "the unit's capabilities are not CAP_BPF CAP_PERFMON"
fi
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ]; then
	timeout -s INT 20 "$T/root/usr/lib/bpftools/bin/softirqs" 1 1 >"$T/out" 2>"$T/err" || bad "unpacked softirqs 1 1 fails: $(cat "$T/err")"
	grep -q '^SOFTIRQ  *TOTAL_usecs$' "$T/out" || bad "unpacked softirqs 1 1 printed no table: $(cat "$T/out")"
	ran=", softirqs 1 1 ran from it"
fi
finish "package: $(basename "$deb") holds the binary, $n links and man pages, completions, no path of $lbt; Installed-Size $got KiB; Depends covers its ${ndeps:-0} libraries${ran:-}"
