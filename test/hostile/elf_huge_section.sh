#!/bin/sh
# Issue 33, "Memory and CPU without bound": the victim maps, executable, a sparse ELF (a few KiB
# on disk) whose .eh_frame claims 6 GiB, and another whose .symtab does (mkelf.py). Read before
# any limit, it took 6.3 GB and 38 s of CPU on 55df65c. A section's size must be checked against
# the file's size and allocated blocks before it is read: every stack tool stays within its RSS
# budget and its time bound, and names the victim's own frames.
. "$(dirname "$0")/lib.sh"
build_victim

mkdir "$T/elf"
"$PY" "$HDIR/mkelf.py" "$T/elf/eh.so" .eh_frame $((6 << 30)) &&
	"$PY" "$HDIR/mkelf.py" "$T/elf/sym.so" .symtab $((6 << 30)) || fail "mkelf.py"
[ "$(du -k "$T/elf/eh.so" | cut -f1)" -lt 1024 ] || skip "this file system keeps no holes"
chmod -R a+rX "$T/elf"
victim elf -m "$T/elf/eh.so" -m "$T/elf/sym.so"
grep -q "$T/elf/eh.so" /proc/"$VPID"/maps || fail "eh.so not mapped"
echo "victim $VPID: maps eh.so and sym.so, $(stat -c %s "$T/elf/eh.so") bytes each, $(du -k "$T/elf/eh.so" | cut -f1) KiB on disk"

stack_tools "$VPID" 'hv_spin|hv_nap|hv_round'
exporter_profile "exporter"
hdone
