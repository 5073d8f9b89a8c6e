#!/usr/bin/env bash
# The lock-heavy programs on fastpath-vm's JIT (default tiers) with its monitors inline and with
# every enter and exit a runtime call (FASTPATH_VM_JIT_INLINE_LOCKS=0, the JIT before the inline
# monitors), beside HotSpot C2, at 1 and 2 threads, each VM with its default collector (fastpath-vm's
# passive one, without barriers; HotSpot's G1); both JITs also with lock coarsening off
# (-XX:-EliminateLocks, the same flag on each): the five interleaved run by run, ROUNDS
# rounds; a run's figure is the median of the second half of its ITER iterations, a side's the
# median over rounds. Prints a Markdown table (ms per iteration, and the ratios).
#
# usage: measure-locks.sh [Benchmark ...]    (default: SyncCounter LruCache WaitNotifyQueue HandOff)
#   VM        fastpath-vm        (default: target/release/fastpath-vm of this checkout)
#   JAVA      java (C2)          (default: JDK 25's)
#   JAVAC     javac              (default: JDK 25's)
#   ROUNDS    rounds             (default 3)
#   ITER      iterations per run (default 10)
#   THREADS   thread counts      (default "1 2")
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64/bin
VM="${VM:-$here/../../../../target/release/fastpath-vm}"
JAVA="${JAVA:-$jdk25/java}"
JAVAC="${JAVAC:-$jdk25/javac}"
ROUNDS="${ROUNDS:-3}"
ITER="${ITER:-10}"
THREADS="${THREADS:-1 2}"
names="${*:-SyncCounter LruCache WaitNotifyQueue HandOff}"
[ -x "$VM" ] || { echo "measure-locks.sh: no fastpath-vm at $VM (cargo build --release -p fastpath-vm)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$JAVAC" -nowarn --release 17 -d "$out" "$here"/*.java

inner() { # the lab's full sizes (fastpath-lab experiments/vm/programs.rs)
    case "$1" in
        SyncCounter) echo 500000 ;; LruCache) echo 100000 ;; WaitNotifyQueue) echo 20000 ;; HandOff) echo 5000 ;;
        *) echo "measure-locks.sh: no size for $1" >&2; exit 2 ;;
    esac
}

peak_ms() { # median of the second half of the iterations' nanosecond column, in ms
    awk -v n="$ITER" '$2 == "iteration" && $3 >= int(n / 2) {print $4}' | sort -n |
        awk '{v[NR]=$1} END {if (NR == 0) {print "nan"; exit} m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.2f", m / 1e6}'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.2f", m}'; }

run() { # side program threads -> ms
    local side=$1 p=$2 t=$3 n
    n=$(inner "$p")
    case "$side" in
        calls) FASTPATH_VM_JIT_INLINE_LOCKS=0 "$VM" -cp "$out" Harness "$p" "$ITER" "$n" "$t" | peak_ms ;;
        inline) "$VM" -cp "$out" Harness "$p" "$ITER" "$n" "$t" | peak_ms ;;
        inline-el) "$VM" -XX:-EliminateLocks -cp "$out" Harness "$p" "$ITER" "$n" "$t" | peak_ms ;;
        c2) "$JAVA" -cp "$out" Harness "$p" "$ITER" "$n" "$t" | peak_ms ;;
        c2-el) "$JAVA" -XX:-EliminateLocks -cp "$out" Harness "$p" "$ITER" "$n" "$t" | peak_ms ;;
    esac
}

echo "| program | threads | JIT, runtime calls ms | JIT, inline, no coarsening ms | JIT, inline ms | C2, no coarsening ms | HotSpot C2 ms | inline ÷ calls | inline ÷ C2 | no coarsening: JIT ÷ C2 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for p in $names; do
    for t in $THREADS; do
        a="" b="" c="" d="" e=""
        for _ in $(seq "$ROUNDS"); do
            a="$a $(run calls "$p" "$t")"
            d="$d $(run inline-el "$p" "$t")"
            b="$b $(run inline "$p" "$t")"
            e="$e $(run c2-el "$p" "$t")"
            c="$c $(run c2 "$p" "$t")"
        done
        ma=$(echo "$a" | median) mb=$(echo "$b" | median) mc=$(echo "$c" | median)
        md=$(echo "$d" | median) me=$(echo "$e" | median)
        ratio() { awk -v x="$1" -v y="$2" 'BEGIN {printf "%.2f", x / y}'; }
        echo "| $p | $t | $ma | $md | $mb | $me | $mc | $(ratio "$mb" "$ma") | $(ratio "$mb" "$mc") | $(ratio "$md" "$me") |"
    done
done
