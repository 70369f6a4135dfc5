#!/bin/sh
# twin-skeleton.sh SKEL NAME TWIN TWIN_NAME: whether skeleton header TWIN (bpftool's for
# TWIN_NAME) is SKEL (NAME's) but for the names and the object's bytes, so that NAME's skeleton
# can open TWIN's bytes (cmake/BpfSkeleton.cmake, bt_bpf_skeleton_nokfuncs). Exit 1 saying
# where they differ.
set -eu
skel=$1 name=$2 twin=$3 twin_name=$4

# The header without the bytes (from the function returning them to the literal's end) and
# with NAME in place of the twin's name, in both cases.
strip() {
	upper=$(printf '%s' "$2" | tr '[:lower:]' '[:upper:]')
	sed -e '/__elf_bytes(size_t \*sz)$/,/";$/d' -e "s/$2_bpf/NAME_bpf/g" \
		-e "s/${upper}_BPF/NAME_BPF/g" "$1"
}

a=$(mktemp) b=$(mktemp)
trap 'rm -f "$a" "$b"' EXIT
strip "$skel" "$name" >"$a"
strip "$twin" "$twin_name" >"$b"
if ! diff -u "$a" "$b" >&2; then
	echo "${twin_name}: not the skeleton of $name but for its bytes: its programs, maps or data differ" >&2
	exit 1
fi
