#!/usr/bin/env bash
# Runs the HotSpot peers of the fastpath experiments with JMH and writes JMH JSON under
# ${OUT:-../../fastpath-report/jvm}, one file per locking mode, readable by `fastpath compare`.
#   QUICK=1 ./run.sh      a smoke run (seconds per benchmark)
# Needs Maven and a JDK that accepts -XX:LockingMode (JDK 21–25); JAVA_HOME selects it.
set -euo pipefail
cd "$(dirname "$0")"
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
OUT=${OUT:-../../fastpath-report/jvm}
mkdir -p "$OUT"
mvn -q -B package -DskipTests
if [ "${QUICK:-0}" = 1 ]; then
  iters=(-wi 1 -w 200ms -i 3 -r 200ms -f 1)
else
  iters=(-wi 3 -w 1s -i 5 -r 1s -f 1)
fi
# -p mode labels the suite's rows with the lab's name for the mode (LockBench.Label).
names=([0]=monitor [1]=legacy [2]=lightweight)
for mode in 2 1 0; do
  "$JAVA_HOME/bin/java" -jar target/benchmarks.jar 'LockBench\.' "${iters[@]}" -p "mode=${names[$mode]}" \
    -jvmArgsAppend "-XX:+UnlockDiagnosticVMOptions -XX:LockingMode=$mode" \
    -rf json -rff "$OUT/lock-LockingMode$mode.json"
done
# Issue 14's contended table: synchronized and ReentrantLock at 1, 2, 4, ... up to 2x the CPUs
# (as `fastpath lock`), merged into one file for `fastpath compare --by-workload`.
contended=()
for ((t = 1; t <= 2 * $(nproc); t *= 2)); do
  "$JAVA_HOME/bin/java" -jar target/benchmarks.jar LockContendedBench "${iters[@]}" -t "$t" \
    -rf json -rff "$OUT/lock-contended-t$t.json"
  contended+=("$OUT/lock-contended-t$t.json")
done
# JMH writes "[", the objects, then "]" (and blank lines): join the middles with commas.
{ echo '['; for f in "${contended[@]}"; do [ "$f" = "${contended[0]}" ] || echo ','; sed -e '1d' -e '/^]$/,$d' "$f"; done; echo ']'; } \
  >"$OUT/lock-contended.json"
"$JAVA_HOME/bin/java" -jar target/benchmarks.jar SpinBench "${iters[@]}" -rf json -rff "$OUT/spin.json"
for t in 1 2 4; do
  "$JAVA_HOME/bin/java" -jar target/benchmarks.jar 'SpinBench.lruGetPut' "${iters[@]}" -t "$t" \
    -rf json -rff "$OUT/lru-t$t.json"
done
# Seed 003 (perfnorm section): XML validation under Shenandoah passive mode (JDK 25: passive turns
# every barrier off), each barrier re-enabled alone, and the default mode; -prof perfnorm where the
# CPU has counters. Compare two files with `fastpath compare`.
prof=()
if perf stat -e instructions true >/dev/null 2>&1; then prof=(-prof perfnorm); fi
shen="-XX:+UseShenandoahGC -XX:+UnlockDiagnosticVMOptions -Xms1g -Xmx1g"
for b in none LoadRef SATB CAS Clone; do
  flags="$shen -XX:ShenandoahGCMode=passive"
  [ "$b" != none ] && flags="$flags -XX:+Shenandoah${b}Barrier"
  "$JAVA_HOME/bin/java" -jar target/benchmarks.jar XmlValidationBench "${iters[@]}" "${prof[@]}" \
    -jvmArgsAppend "$flags" -rf json -rff "$OUT/xml-passive-$b.json"
done
"$JAVA_HOME/bin/java" -jar target/benchmarks.jar XmlValidationBench "${iters[@]}" "${prof[@]}" \
  -jvmArgsAppend "$shen" -rf json -rff "$OUT/xml-default.json"
# Seed 000's second table: JVM starts per -XX:X86ICacheSync, with and without an AOT cache.
RUNS=${RUNS:-$([ "${QUICK:-0}" = 1 ] && echo 3 || echo 10)} ./startup.py | tee "$OUT/jvm-startup.md"
# Issue 9's pauses (gc-pause): Shenandoah's -Xlog:safepoint parts beside `fastpath gc --only pauses`.
python3 gc_pauses.py --threads 1,2,4 --seconds "$([ "${QUICK:-0}" = 1 ] && echo 2 || echo 10)" | tee "$OUT/gc-pauses.txt"
echo "wrote $OUT"
