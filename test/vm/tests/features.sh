#!/bin/sh
# features in the guest: a stock kernel with kprobes and fentry says so, and what it says about
# kprobe.multi matches the kernel config; the JSON report carries the same facts.
. "$BTVM_LIB"

run_tool -t 60 features
assert_rc 0
assert_contains "$OUT" '^BTF +yes$' "features"
assert_contains "$OUT" '^kprobes +yes$' "features"
assert_contains "$OUT" '^kretprobes +yes$' "features"
assert_contains "$OUT" '^fentry/fexit +yes$' "features"
assert_contains "$OUT" '^fentry attach cookies +yes$' "features (6.1 >= 5.19)"
assert_contains "$OUT" '^uprobes +yes$' "features"
assert_contains "$OUT" '^tracepoints +yes$' "features"
assert_contains "$OUT" '^lockdown +none$' "features"
if has_facility kprobe_multi; then
  assert_contains "$OUT" '^kprobe\.multi +yes$' "features"
else
  assert_contains "$OUT" '^kprobe\.multi +no \(kernel built without CONFIG_FPROBE\)$' "features"
fi
# tracefs is readable here: the function list comes from ftrace itself
assert_contains "$OUT" '^kernel functions +[0-9]+ traceable \(available_filter_functions\)$' "features"
n=$(sed -n 's/^kernel functions  *\([0-9]*\) .*/\1/p' "$OUT")
assert_ge "$n" 10000 "traceable kernel functions"
if "$BPFTOOLS" --list | grep -q '^funccount '; then
  : # funccount declares its needs once it has .uses; nothing to assert yet
fi

run_tool -t 60 features --json
assert_rc 0
assert_contains "$OUT" '"kprobes": \{' "features --json"
assert_contains "$OUT" '"fentry": \{' "features --json"
assert_contains "$OUT" '"lockdown": "none"' "features --json"
assert_contains "$OUT" '"source": "available_filter_functions"' "features --json"
# every facility object says "available"; none of kprobes/fentry is false here (the report is
# one line of JSON, as every --json: docs/json.md)
[ "$(wc -l <"$OUT")" = 1 ] || fail "features --json: not one line"
n=$(grep -oE '"available": (true|false)' "$OUT" | wc -l)
[ "$n" -ge 15 ] || fail "features --json has $n facilities saying \"available\", expected at least 15"
grep -oE '"(kprobes|kretprobes|fentry)": [{]"available": (true|false)' "$OUT" | grep -q 'false' &&
  fail "features --json says kprobes or fentry unavailable"
assert_no_probes "after features"
exit 0
