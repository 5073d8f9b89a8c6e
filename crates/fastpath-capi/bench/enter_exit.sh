#!/usr/bin/env bash
# An uncontended monitor enter/exit pair from C (through libfastpath.a and
# libfastpath.so; `_on`: the explicit-thread pair, fastpath_monitor_enter_on/
# exit_on with the thread block loaded once; `_inline`: that pair's inline
# form from fastpath.h, fastpath_monitor_enter_inline/exit_inline; `_noplt`: the `.so` called by a
# program compiled with -fno-plt, the lock path's flags in fastpath.pc) against
# the same pair from Rust, interleaved in one run:
# ROUNDS times, each program measures PAIRS pairs once, in turn; prints each
# variant's median ns per pair, and the median over rounds of its ratio to
# Rust's measurement of the same round (adjacent in time, so less affected
# by the machine's load drifting over the run).
# Usage (repository root): crates/fastpath-capi/bench/enter_exit.sh [PAIRS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
PAIRS=${1:-5000000}
ROUNDS=${2:-41}
CC=${CC:-cc}
out=target/release
cargo build --release -q -p fastpath-capi --lib --example enter_exit
$CC -std=c11 -O2 -Iinclude crates/fastpath-capi/bench/enter_exit.c $out/libfastpath.a \
    -lpthread -ldl -lm -lrt -o $out/enter_exit_c_static
$CC -std=c11 -O2 -Iinclude crates/fastpath-capi/bench/enter_exit.c -L$out -lfastpath \
    -Wl,-rpath,"$PWD/$out" -o $out/enter_exit_c_shared
$CC -std=c11 -O2 -fno-plt -Iinclude crates/fastpath-capi/bench/enter_exit.c -L$out -lfastpath \
    -Wl,-rpath,"$PWD/$out" -o $out/enter_exit_c_shared_noplt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < ROUNDS; r++)); do
    $out/examples/enter_exit "$PAIRS" 1 | awk '{print $2}' >>"$tmp/rust"
    $out/enter_exit_c_static "$PAIRS" 1 | awk '{print $2}' >>"$tmp/c_static"
    $out/enter_exit_c_shared "$PAIRS" 1 | awk '{print $2}' >>"$tmp/c_shared"
    $out/enter_exit_c_static "$PAIRS" 1 on | awk '{print $2}' >>"$tmp/c_static_on"
    $out/enter_exit_c_shared "$PAIRS" 1 on | awk '{print $2}' >>"$tmp/c_shared_on"
    $out/enter_exit_c_shared_noplt "$PAIRS" 1 | awk '{print $2}' >>"$tmp/c_shared_noplt"
    $out/enter_exit_c_shared_noplt "$PAIRS" 1 on | awk '{print $2}' >>"$tmp/c_shared_noplt_on"
    $out/enter_exit_c_static "$PAIRS" 1 inline | awk '{print $2}' >>"$tmp/c_static_inline"
    $out/enter_exit_c_shared "$PAIRS" 1 inline | awk '{print $2}' >>"$tmp/c_shared_inline"
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "pairs per round $PAIRS, rounds $ROUNDS (interleaved)"
echo "variant           median ns/pair  median per-round ratio to rust"
for v in rust c_static c_shared c_static_on c_shared_on c_shared_noplt c_shared_noplt_on c_static_inline c_shared_inline; do
    paste "$tmp/$v" "$tmp/rust" | awk '{print $1 / $2}' >"$tmp/$v.ratio"
    printf "%-17s %14.3f  %.3fx\n" "$v" "$(median "$tmp/$v")" "$(median "$tmp/$v.ratio")"
done
