#!/usr/bin/env python3
"""Interleaved peak and warm-up of benchmark programs under several VM commands.

Each round runs every command once per program, in the order given, so that a
slow or fast stretch of the machine falls on all of them alike. A run's peak
is the median of the second half of its iterations; its warm-up is the time
from the first iteration's start to the end of the first iteration within 90 %
of that peak's throughput (`t <= peak / 0.9`; the whole run's if none is): the
definitions of the `jit` table of `benches/hotspot.rs`. A side's figures are
the medians over rounds, printed with the iteration each round reached its
peak at.

usage: warmup.py CLASSES ROUNDS ITERATIONS PROGRAMS 'label=[VAR=value ...] command [args]' ...

CLASSES is a directory of the compiled programs (`javac --release 17 -d
CLASSES crates/fastpath-vm/bench/java/*.java`); PROGRAMS is a comma-separated
list of benchmark names, each optionally with the Harness's inner size and
thread count after colons (`LruCache:100000:1`); each command gets `-cp
CLASSES Harness PROGRAM ITERATIONS [INNER [THREADS]]` appended. Example, a
build of fastpath-vm against HotSpot C2:

  warmup.py /tmp/cls 7 12 Sieve,Json,LruCache:100000:1 \\
      'fastpath=target/release/fastpath-vm' 'c2=java'
"""
import statistics
import sys

from ab import run_harness


def run_once(command, classes, program, iterations):
    """Runs one command; returns (peak ms, warm-up ms, index of the iteration reaching the peak)."""
    name, *sizes = program.split(":")
    done, times = run_harness(command, classes, [name, str(iterations), *sizes])
    if done.returncode != 0 or len(times) < 2:
        sys.exit(f"warmup.py: {command!r} on {program} failed (status {done.returncode}):\n{done.stderr[-2000:]}")
    peak = statistics.median(times[len(times) // 2:])
    reached = next((i for i, t in enumerate(times) if t <= peak / 0.9), len(times) - 1)
    return peak, sum(times[: reached + 1]), reached


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    classes, rounds, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    programs = sys.argv[4].split(",")
    sides = []
    for spec in sys.argv[5:]:
        label, sep, command = spec.partition("=")
        if not sep or not command:
            sys.exit(f"warmup.py: {spec!r} is not label=command")
        sides.append((label, command))
    for program in programs:
        runs = {label: [] for label, _ in sides}
        for _ in range(rounds):
            for label, command in sides:
                runs[label].append(run_once(command, classes, program, iterations))
        for label, rs in runs.items():
            print(
                f"{program} {label}: peak {statistics.median(r[0] for r in rs):.2f} ms,"
                f" warm-up {statistics.median(r[1] for r in rs):.1f} ms"
                f" (rounds {' '.join(f'{r[1]:.1f}' for r in rs)};"
                f" peak reached at iteration {' '.join(str(r[2]) for r in rs)})",
                flush=True,
            )


if __name__ == "__main__":
    main()
