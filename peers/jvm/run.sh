#!/usr/bin/env bash
# Runs the HotSpot peers of the fastpath experiments with JMH and writes JMH JSON under
# ${OUT:-../../fastpath-report/jvm}, one file per locking mode, readable by `fastpath compare`.
#   QUICK=1 ./run.sh      a smoke run (seconds per benchmark)
#   ONLY=lock|spin|xml|startup|pauses|jit ./run.sh   one group (comma list), default all
# Needs Maven and a JDK 21–25 (one that accepts -XX:LockingMode and has Shenandoah). JAVA_HOME
# selects it; unset, the newest JDK 21–25 under /usr/lib/jvm (or `java` on PATH) is used. The
# JDK is checked before anything runs.
#
# Results are written to a temporary folder beside $OUT and moved into $OUT only when every run
# succeeded and wrote rows: a failed or interrupted run leaves the previous results as they were.
set -euo pipefail
cd "$(dirname "$0")"

# The JDK's major version ("25" from `openjdk version "25.0.3"`, "1" never: JDK 8 says "1.8").
jdk_major() {
  "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\)[."].*/\1/p' | head -1
}
usable() { local m; m=$(jdk_major "$1"); [ -n "$m" ] && [ "$m" -ge 21 ] && [ "$m" -le 25 ]; }

if [ -z "${JAVA_HOME:-}" ]; then
  best=""
  for d in /usr/lib/jvm/*; do
    [ -x "$d/bin/java" ] && usable "$d" || continue
    if [ -z "$best" ] || [ "$(jdk_major "$d")" -gt "$(jdk_major "$best")" ]; then best=$d; fi
  done
  if [ -z "$best" ] && command -v java >/dev/null; then
    j=$(readlink -f "$(command -v java)")
    best=${j%/bin/java}
  fi
  JAVA_HOME=$best
fi
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
  echo "run.sh: no JDK found; install JDK 21–25 or set JAVA_HOME" >&2
  exit 2
fi
major=$(jdk_major "$JAVA_HOME")
if ! usable "$JAVA_HOME"; then
  echo "run.sh: $JAVA_HOME is JDK ${major:-?}; the peers need JDK 21–25 (-XX:LockingMode, Shenandoah)." >&2
  echo "  JDKs found under /usr/lib/jvm:" >&2
  for d in /usr/lib/jvm/*; do [ -x "$d/bin/java" ] && echo "    $d (JDK $(jdk_major "$d"))" >&2; done
  echo "  Set JAVA_HOME to a JDK 21–25." >&2
  exit 2
fi
export JAVA_HOME
echo "run.sh: JDK $major at $JAVA_HOME" >&2
java=("$JAVA_HOME/bin/java")

OUT=${OUT:-../../fastpath-report/jvm}
mkdir -p "$OUT"
TMP=$(mktemp -d "${OUT%/}.tmp.XXXXXX")
SEEN=$(mktemp)
trap 'rm -rf "$TMP" "$SEEN"' EXIT
# Ctrl-C or a kill ends the whole run (JMH exits on its own after SIGINT, and the loop would go
# on to the next benchmark); the EXIT trap then drops the partial results.
trap 'echo "run.sh: interrupted; $OUT left as it was" >&2; exit 130' INT TERM

want() { [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$1,"* ]]; }

mvn -q -B package -DskipTests
if [ "${QUICK:-0}" = 1 ]; then
  iters=(-wi 1 -w 200ms -i 3 -r 200ms -f 1)
else
  iters=(-wi 3 -w 1s -i 5 -r 1s -f 1)
fi

# Copies JMH's output through, each JVM warning line only the first time this run meets it: every
# fork of JDK 24+ prints "Option LockingMode was deprecated", and every JVM that loads JMH prints
# the same four lines about sun.misc.Unsafe.
once() {
  awk -v seen="$SEEN" '
    BEGIN { while ((getline l < seen) > 0) done[l] = 1 }
    {
      # The line without the colour codes a previous tool may have left before it.
      line = $0; gsub(/\033\[[0-9;]*m/, "", line)
      if (line ~ /^(OpenJDK 64-Bit Server VM warning|WARNING): /) {
        if (line in done) next
        done[line] = 1; print line >>seen; fflush(seen)
      }
      print; fflush()
    }'
}

# One JMH run into $TMP/$1 (the other arguments go to JMH). Fails when JMH fails or when the
# file holds no result row (a fork that died on an unknown VM option leaves "[ ]").
jmh() {
  local file=$1
  shift
  "${java[@]}" -jar target/benchmarks.jar "$@" -rf json -rff "$TMP/$file" 2>&1 | once
  if ! grep -q '"primaryMetric"' "$TMP/$file"; then
    echo "run.sh: $file: JMH wrote no result (see its output above)" >&2
    exit 1
  fi
}

if want lock; then
  # -p mode labels the suite's rows with the lab's name for the mode (LockBench.Label).
  names=([0]=monitor [1]=legacy [2]=lightweight)
  for mode in 2 1 0; do
    jmh "lock-LockingMode$mode.json" 'LockBench\.' "${iters[@]}" -p "mode=${names[$mode]}" \
      -jvmArgsAppend "-XX:+UnlockDiagnosticVMOptions -XX:LockingMode=$mode"
  done
  # Issue 14's contended table: synchronized and ReentrantLock at 1, 2, 4, ... up to 2x the CPUs
  # (as `fastpath lock`), merged into one file for `fastpath compare --by-workload`.
  contended=()
  for ((t = 1; t <= 2 * $(nproc); t *= 2)); do
    jmh "lock-contended-t$t.json" LockContendedBench "${iters[@]}" -t "$t"
    contended+=("$TMP/lock-contended-t$t.json")
  done
  # JMH writes "[", the objects, then "]" (and blank lines): join the middles with commas.
  { echo '['; for f in "${contended[@]}"; do [ "$f" = "${contended[0]}" ] || echo ','; sed -e '1d' -e '/^]$/,$d' "$f"; done; echo ']'; } \
    >"$TMP/lock-contended.json"
fi
if want spin; then
  jmh spin.json SpinBench "${iters[@]}"
  for t in 1 2 4; do
    jmh "lru-t$t.json" 'SpinBench.lruGetPut' "${iters[@]}" -t "$t"
  done
fi
if want xml; then
  # Seed 003 (perfnorm section): XML validation under Shenandoah passive mode (JDK 25: passive
  # turns every barrier off), each barrier re-enabled alone, and the default mode; -prof perfnorm
  # where the CPU has counters. `perf stat` exits 0 on a machine without them and says
  # "<not supported>", so the probe reads its output, not its exit code.
  prof=()
  if probe=$(perf stat -x, -e instructions true 2>&1) && ! grep -q '<not supported>\|<not counted>' <<<"$probe"; then
    prof=(-prof perfnorm)
  else
    echo "run.sh: no hardware counters here (perf stat: ${probe:-no perf}); XmlValidationBench runs without -prof perfnorm" >&2
  fi
  shen="-XX:+UseShenandoahGC -XX:+UnlockDiagnosticVMOptions -Xms1g -Xmx1g"
  for b in none LoadRef SATB CAS Clone; do
    flags="$shen -XX:ShenandoahGCMode=passive"
    [ "$b" != none ] && flags="$flags -XX:+Shenandoah${b}Barrier"
    jmh "xml-passive-$b.json" XmlValidationBench "${iters[@]}" "${prof[@]}" -jvmArgsAppend "$flags"
  done
  jmh xml-default.json XmlValidationBench "${iters[@]}" "${prof[@]}" -jvmArgsAppend "$shen"
fi
if want jit; then
  # `fastpath jit`'s HotSpot column: C2's inlined fast paths in loops (JitBench), merged into
  # jit.json. Locks with -XX:-EliminateLocks (every pair a real monitorenter/exit); barriers one
  # collector per fork, 64-bit references and no vectorised stores, as the lab's loops.
  plain="-XX:-UseCompressedOops -XX:-UseSuperWord -Xms256m -Xmx256m"
  jmh jit-lock.json 'JitBench\.(casPair|uncontended|recursive|churn)$' "${iters[@]}" -p gc=default -jvmArgsAppend "-XX:-EliminateLocks"
  jmh jit-epsilon.json 'JitBench\.ref' "${iters[@]}" -p gc=epsilon \
    -jvmArgsAppend "$plain -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC"
  jmh jit-serial.json 'JitBench\.refStore' "${iters[@]}" -p gc=serial -jvmArgsAppend "$plain -XX:+UseSerialGC"
  shen="$plain -XX:+UseShenandoahGC -XX:+UnlockDiagnosticVMOptions -XX:ShenandoahGCMode=passive"
  jmh jit-satb.json 'JitBench\.refStore' "${iters[@]}" -p gc=passive-satb -jvmArgsAppend "$shen -XX:+ShenandoahSATBBarrier"
  jmh jit-lrb.json 'JitBench\.refLoad' "${iters[@]}" -p gc=passive-lrb -jvmArgsAppend "$shen -XX:+ShenandoahLoadRefBarrier"
  parts=("$TMP"/jit-lock.json "$TMP"/jit-epsilon.json "$TMP"/jit-serial.json "$TMP"/jit-satb.json "$TMP"/jit-lrb.json)
  { echo '['; for f in "${parts[@]}"; do [ "$f" = "${parts[0]}" ] || echo ','; sed -e '1d' -e '/^]$/,$d' "$f"; done; echo ']'; } \
    >"$TMP/jit.json"
  rm -f "${parts[@]}"
fi
if want startup; then
  # Seed 000's second table: JVM starts per -XX:X86ICacheSync, with and without an AOT cache.
  RUNS=${RUNS:-$([ "${QUICK:-0}" = 1 ] && echo 3 || echo 10)} ./startup.py >"$TMP/jvm-startup.md"
  cat "$TMP/jvm-startup.md"
fi
if want pauses; then
  # Issue 9's pauses (gc-pause): Shenandoah's -Xlog:safepoint parts beside `fastpath gc --only pauses`.
  python3 gc_pauses.py --threads 1,2,4 --seconds "$([ "${QUICK:-0}" = 1 ] && echo 2 || echo 10)" >"$TMP/gc-pauses.txt"
  cat "$TMP/gc-pauses.txt"
fi
# Every run succeeded: keep the new results (each replaces its old file; other files stay).
shopt -s nullglob
files=("$TMP"/*)
[ ${#files[@]} -gt 0 ] || { echo "run.sh: nothing ran (ONLY=${ONLY:-})" >&2; exit 2; }
mv -f "${files[@]}" "$OUT"/
echo "wrote ${#files[@]} files to $OUT"
