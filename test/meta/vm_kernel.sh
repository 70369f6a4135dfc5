#!/bin/sh
# scripts/vm-test --kernel PATTERN finds the package in whichever Debian release the tier knows,
# without a SUITE/ prefix ('linux-image-5.10.0-*-cloud-amd64' is bullseye's, and said "not
# downloadable" when only the host's release was searched); SUITE/PATTERN still picks that
# release alone. No boot, no network: apt-cache and apt-get are stand-ins answering from a
# table, the host's release (its lists) with 6.1, bullseye's (the tier's private lists) with 5.10.
. "$(dirname "$0")/lib.sh"

mkdir "$T/bin"
cat >"$T/bin/apt-cache" <<'EOS'
#!/bin/sh
case "$*" in
*/apt/bullseye/*) names="linux-image-5.10.0-33-cloud-amd64" ;;
*) names="linux-image-6.1.0-28-cloud-amd64 linux-image-6.1.0-27-cloud-amd64" ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	-o) shift 2 ;;
	pkgnames) for n in $names; do case $n in "$2"*) echo "$n" ;; esac; done; exit 0 ;;
	policy) for n in $names; do [ "$n" = "$2" ] && echo "  Candidate: 1.0"; done; exit 0 ;;
	*) shift ;;
	esac
done
EOS
printf '#!/bin/sh\nexit 0\n' >"$T/bin/apt-get"
chmod +x "$T/bin/apt-cache" "$T/bin/apt-get"

# list PATTERN: what --list-kernels resolves PATTERN to.
list() {
	PATH=$T/bin:$PATH bash "$BT_SRC/scripts/vm-test" --no-install --cache "$T/cache" \
		--kernel "$1" --list-kernels 2>"$T/err" | sed -n "s|^.* -> ||p"
}

got=$(list 'linux-image-5.10.0-*-cloud-amd64')
[ "$got" = "linux-image-5.10.0-33-cloud-amd64 1.0 (bullseye)" ] ||
	bad "a bare 5.10 pattern: '$got', not bullseye's package ($(head -3 "$T/err"))"
got=$(list 'bullseye/linux-image-5.10.0-*-cloud-amd64')
[ "$got" = "linux-image-5.10.0-33-cloud-amd64 1.0 (bullseye)" ] ||
	bad "bullseye/ prefix: '$got'"
got=$(list 'linux-image-6.1.0-*-cloud-amd64')
[ "$got" = "linux-image-6.1.0-28-cloud-amd64 1.0" ] || bad "the host's 6.1: '$got' (the newest ABI, no suite)"
got=$(list 'bullseye/linux-image-6.1.0-*-cloud-amd64')
[ "$got" = "(not available)" ] || bad "bullseye/ with a host-only kernel: '$got', not '(not available)'"
got=$(list 'linux-image-4.19.0-*-cloud-amd64')
[ "$got" = "(not available)" ] || bad "a kernel in no release: '$got'"
finish "--kernel PATTERN found in the host's release or a known one; SUITE/ picks one"
