#!/usr/bin/env bash
# Times every benchmark (or those named) on HotSpot through Harness at its default inner size:
# the default JIT mode (C2 in steady state: the median of the second half of ITER_JIT
# iterations) and -Xint (the median of iterations 1..ITER_INT-1). Prints a Markdown table.
#
# usage: measure-hotspot.sh [Benchmark ...]
#   JAVA        java to measure   (default: JDK 25's)
#   JAVAC       javac             (default: JDK 25's)
#   ITER_JIT    iterations in JIT mode  (default 40)
#   ITER_INT    iterations with -Xint   (default 4)
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64/bin
JAVA="${JAVA:-$jdk25/java}"
JAVAC="${JAVAC:-$jdk25/javac}"
ITER_JIT="${ITER_JIT:-40}"
ITER_INT="${ITER_INT:-4}"
all="Bounce List Permute Queens Sieve Storage Towers Richards DeltaBlue Json NBody Mandelbrot CD Havlak
SyncCounter WaitNotifyQueue LruCache HandOff GcTrees GcListChurn"
names="${*:-$all}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$JAVAC" -nowarn --release 17 -d "$out" "$here"/*.java

median_ms() { # median of the nanosecond column of the given iteration lines, in ms
    awk '{print $4}' | sort -n | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.1f", m / 1e6}'
}

echo "| benchmark | C2 ms/iteration | -Xint ms/iteration | -Xint / C2 |"
echo "|---|---:|---:|---:|"
for b in $names; do
    jit="$("$JAVA" -cp "$out" Harness "$b" "$ITER_JIT" | tail -n $((ITER_JIT / 2)) | median_ms)"
    int="$("$JAVA" -Xint -cp "$out" Harness "$b" "$ITER_INT" | tail -n $((ITER_INT - 1)) | median_ms)"
    ratio="$(awk -v a="$int" -v b="$jit" 'BEGIN {printf "%.0f", a / b}')"
    echo "| $b | $jit | $int | $ratio |"
done
