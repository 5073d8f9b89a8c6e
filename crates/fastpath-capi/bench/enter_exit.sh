#!/usr/bin/env bash
# An uncontended monitor enter/exit pair from C (through libfastpath.a and
# libfastpath.so) against the same pair from Rust, interleaved in one run:
# ROUNDS times, each program measures PAIRS pairs once, in turn; prints each
# variant's median ns per pair and its ratio to Rust's.
# Usage (repository root): crates/fastpath-capi/bench/enter_exit.sh [PAIRS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
PAIRS=${1:-20000000}
ROUNDS=${2:-11}
CC=${CC:-cc}
out=target/release
cargo build --release -q -p fastpath-capi --lib --example enter_exit
$CC -std=c11 -O2 -Iinclude crates/fastpath-capi/bench/enter_exit.c $out/libfastpath.a \
    -lpthread -ldl -lm -lrt -o $out/enter_exit_c_static
$CC -std=c11 -O2 -Iinclude crates/fastpath-capi/bench/enter_exit.c -L$out -lfastpath \
    -Wl,-rpath,"$PWD/$out" -o $out/enter_exit_c_shared
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < ROUNDS; r++)); do
    $out/examples/enter_exit "$PAIRS" 1 | awk '{print $2}' >>"$tmp/rust"
    $out/enter_exit_c_static "$PAIRS" 1 | awk '{print $2}' >>"$tmp/c_static"
    $out/enter_exit_c_shared "$PAIRS" 1 | awk '{print $2}' >>"$tmp/c_shared"
done
median() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
rust=$(median "$tmp/rust")
echo "pairs per round $PAIRS, rounds $ROUNDS (interleaved), median ns per enter+exit pair:"
for v in rust c_static c_shared; do
    m=$(median "$tmp/$v")
    awk -v v="$v" -v m="$m" -v r="$rust" 'BEGIN {printf "%-9s %7.3f ns  %.2fx rust\n", v, m, m / r}'
done
