#!/bin/sh
# /init of the VM-tier guest (busybox sh, PID 1). Built into the initramfs by scripts/vm-test.
# Mounts the kernel filesystems, runs every /opt/btvm/tests/*.sh with a time limit, and prints
# machine-readable lines on the serial console, read back by the host:
#   BTVM BOOTED <kernel release> <uptime s>
#   BTVM RUN <test>                       (as it starts: names the culprit if the guest dies)
#   BTVM OUT <test> | <line of the test's output>
#   BTVM RESULT <test> PASS|FAIL|SKIP <seconds> <reason>
#   BTVM DONE <number of tests>
# then powers off. Kernel command line: btvm.timeout=SECS (default per-test limit; a test can
# set its own with a `# vm-timeout: SECS` line), btvm.timescale=N (every such limit N times
# longer: a guest beside other work), btvm.shell=1 (interactive shell, no tests).

export PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C LC_ALL=C
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
hostname btvm
ip link set lo up 2>/dev/null
dmesg -n 1                       # keep kernel messages off the console; tests read dmesg

export BPFTOOLS=/usr/local/sbin/bpftools
export BT_WORKLOADS=/opt/btvm/workloads
export LD_LIBRARY_PATH=/opt/btvm/lib # build-tree libraries of the workloads
export BTVM_LIB=/opt/btvm/lib.sh
export BTVM=1

cmdline=$(cat /proc/cmdline)
default_timeout=120
timescale=1
for w in $cmdline; do
  case $w in
    btvm.timeout=*) default_timeout=${w#*=} ;;
    btvm.timescale=*) timescale=${w#*=} ;;
    btvm.shell=1) shell=1 ;;
  esac
done

echo "BTVM BOOTED $(uname -r) $(cut -d' ' -f1 /proc/uptime)"

if [ "${shell:-0}" = 1 ]; then
  echo "btvm: interactive shell; tests are in /opt/btvm/tests (sh /opt/btvm/tests/NAME.sh)"
  setsid cttyhack sh -l
  poweroff -f
fi

uptime_cs() { # centiseconds since boot
  read -r up _ </proc/uptime
  echo "${up%.*}${up#*.}"
}

# pids of processes running the bpftools binary (whatever name they were started under);
# one ls and one awk, as every fork is slow under TCG
bpftools_pids() {
  ls -l /proc/[0-9]*/exe 2>/dev/null |
    awk -v bt="$(readlink -f "$BPFTOOLS")" '$NF == bt { split($(NF - 2), a, "/"); print a[3] }'
}

# pids still in process group $1 (stat field 5; comm, field 2, may hold spaces)
group_pids() {
  cat /proc/[0-9]*/stat 2>/dev/null |
    awk -v pg="$1" '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); if (f[3] == pg) print $1 }'
}

n=0
for t in /opt/btvm/tests/*.sh; do
  [ -e "$t" ] || continue
  n=$((n + 1))
  name=${t##*/}
  name=${name%.sh}
  limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n 1)
  [ -n "$limit" ] || limit=$default_timeout
  limit=$((limit * timescale))
  work=/tmp/btvm/$name
  mkdir -p "$work"
  out=$work/.output
  export BTVM_FAILFILE=$work/.failed BTVM_SKIPFILE=$work/.skipped
  dmesg -c >/dev/null 2>&1
  echo "BTVM RUN $name"
  start=$(uptime_cs)

  # The test runs in its own session (process group), so a time-out kills all it started.
  (cd "$work" && exec setsid sh "$t") >"$out" 2>&1 </dev/null &
  pid=$!
  (
    sleep "$limit"
    if [ -d "/proc/$pid" ]; then
      : >"$work/.timedout"
      kill -TERM "-$pid" 2>/dev/null
      sleep 3
      kill -KILL "-$pid" 2>/dev/null
    fi
  ) </dev/null >/dev/null 2>&1 &
  watchdog=$!
  wait "$pid"
  rc=$?
  kill "$watchdog" 2>/dev/null
  end=$(uptime_cs)
  secs=$(((end - start) / 100)).$(((end - start) % 100 / 10))

  # fail/skip record their first reason in a file, so that they count even when called in a
  # subshell ($(...), a pipeline) that could not end the test itself.
  reason=
  if [ -e "$work/.timedout" ]; then
    status=FAIL reason="timed out after ${limit}s"
  elif [ -s "$work/.failed" ]; then
    status=FAIL reason=$(head -n 1 "$work/.failed")
  elif [ $rc != 0 ] && [ $rc != 77 ]; then
    status=FAIL
    reason=$(sed -n 's/^FAIL: *//p' "$out" | tail -n 1)
    [ -n "$reason" ] || reason="exit status $rc"
  elif [ $rc = 77 ] || [ -s "$work/.skipped" ]; then
    status=SKIP
    reason=$(head -n 1 "$work/.skipped" 2>/dev/null)
    [ -n "$reason" ] || reason=$(sed -n 's/^SKIP: *//p' "$out" | tail -n 1)
    [ -n "$reason" ] || reason="no reason given"
  else
    status=PASS
  fi

  # Checks after every test: nothing left running, no probes or pins left, no kernel warning.
  left=$(group_pids "$pid"; bpftools_pids)
  if [ -n "$left" ]; then
    left=$(echo $left | tr ' ' '\n' | sort -u | tr '\n' ' ')
    echo "btvm: processes left behind: $(for p in $left; do printf '%s(%s) ' "$p" "$(cat /proc/$p/comm 2>/dev/null)"; done)" >>"$out"
    kill -KILL "-$pid" $left 2>/dev/null
    sleep 1
    [ $status = FAIL ] || { status=FAIL; reason="left processes running after it ended: $left"; }
  fi
  for ev in kprobe_events uprobe_events; do
    f=/sys/kernel/tracing/$ev
    [ -r "$f" ] || continue
    if [ -n "$(cat "$f")" ]; then
      { echo "btvm: $ev not empty after the test:"; cat "$f"; } >>"$out"
      [ $status = FAIL ] || { status=FAIL; reason="$ev not empty after the test: $(head -n 1 "$f")"; }
      # disable the leftover events first, or clearing fails with EBUSY
      for en in /sys/kernel/tracing/events/kprobes/enable /sys/kernel/tracing/events/uprobes/enable; do
        [ -w "$en" ] && echo 0 >"$en" 2>/dev/null
      done
      : >"$f" 2>/dev/null
    fi
  done
  if [ -n "$(ls -A /sys/fs/bpf 2>/dev/null)" ]; then
    echo "btvm: /sys/fs/bpf not empty after the test: $(ls -A /sys/fs/bpf | tr '\n' ' ')" >>"$out"
    [ $status = FAIL ] || { status=FAIL; reason="left pinned objects in /sys/fs/bpf"; }
    rm -rf /sys/fs/bpf/* 2>/dev/null
  fi
  dmesg -c >"$work/.dmesg" 2>/dev/null
  warn=$(grep -E 'BUG:|WARNING:|Oops|general protection|Call Trace:|soft lockup|hung_task|RCU stall' "$work/.dmesg" | head -n 1)
  if [ -n "$warn" ]; then
    [ $status = FAIL ] || { status=FAIL; reason="kernel warning during the test: $warn"; }
  fi
  if [ $status = FAIL ] && [ -s "$work/.dmesg" ]; then
    { echo "btvm: kernel log during the test:"; tail -n 60 "$work/.dmesg"; } >>"$out"
  fi

  echo "BTVM START $name"
  if [ $status = FAIL ]; then
    tail -n 2000 "$out"
  else
    tail -n 300 "$out"
  fi | sed "s/^/BTVM OUT $name | /"
  echo "BTVM RESULT $name $status $secs $reason"
done

echo "BTVM DONE $n $(cut -d" " -f1 /proc/uptime)"
sync
poweroff -f
