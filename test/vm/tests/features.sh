#!/bin/sh
# features in the guest: a stock kernel with kprobes and fentry says so; what it says of each
# facility that came with a kernel version follows the guest's version (KERNEL_SINCE in
# test/vm/lib.sh), and of kprobe.multi the kernel config; the JSON report carries the same facts.
. "$BTVM_LIB"

run_tool -t 60 features
assert_rc 0
assert_contains "$OUT" '^BTF +yes$' "features"
assert_contains "$OUT" '^kprobes +yes$' "features"
assert_contains "$OUT" '^kretprobes +yes$' "features"
# fentry: since 5.5 on x86-64, 6.4 on arm64 (KERNEL_SINCE)
if kernel_since fentry; then
  assert_contains "$OUT" '^fentry/fexit +yes$' "features"
else
  assert_contains "$OUT" '^fentry/fexit +no ' "features ($(uname -r), $BT_ARCH)"
fi
# what each versioned facility says follows the guest's version (test/vm/lib.sh, KERNEL_SINCE)
expect_since() { # expect_since NAME LABEL
  if kernel_since "$1"; then
    assert_contains "$OUT" "^$2 +yes\$" "features ($(uname -r))"
  else
    assert_contains "$OUT" "^$2 +no \\(kernel older than $(since_version "$1")[ )]" "features ($(uname -r))"
  fi
}
if kernel_since fentry; then
  expect_since fentry_cookies 'fentry attach cookies'
else
  assert_contains "$OUT" '^fentry attach cookies +no \(no fentry\)$' "features ($(uname -r), $BT_ARCH)"
fi
expect_since uprobe_multi 'uprobe\.multi'
expect_since uprobe_session 'uprobe\.session'
expect_since raw_tp_cookies 'raw_tp attach cookies'
assert_contains "$OUT" '^uprobes +yes$' "features"
assert_contains "$OUT" '^tracepoints +yes$' "features"
assert_contains "$OUT" '^lockdown +none$' "features"
if ! kernel_since kprobe_multi; then
  assert_contains "$OUT" "^kprobe\\.multi +no \\(kernel older than $(since_version kprobe_multi)\\)\$" "features"
elif has_facility kprobe_multi; then
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
want='kprobes|kretprobes'
kernel_since fentry && want="$want|fentry"
grep -oE "\"($want)\": [{]\"available\": (true|false)" "$OUT" | grep -q 'false' &&
  fail "features --json says one of $want unavailable"
assert_no_probes "after features"
exit 0
