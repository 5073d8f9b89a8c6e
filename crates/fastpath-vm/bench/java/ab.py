#!/usr/bin/env python3
"""Interleaved A/B wall time of one benchmark program under several VM commands.

Each round runs every command once, in the order given, so that a slow or
fast stretch of the machine falls on all of them alike. A run's figure is
the mean of the second half of its iterations (a throughput: every
iteration of that half counts); a side's figure is the median over rounds,
printed with each round's. The median iteration of each run is printed
beside it, and, when the VM printed its collector statistics
(`FASTPATH_VM_GC_STATS=1`), the cycles of each run.

usage: ab.py CLASSES PROGRAM ROUNDS ITERATIONS 'label=[VAR=value ...] command [args]' ...

CLASSES is a directory of the compiled programs (`javac --release 17 -d
CLASSES crates/fastpath-vm/bench/java/*.java`); each command gets
`-cp CLASSES Harness PROGRAM ITERATIONS` appended. Example, two builds of
the VM with the concurrent collector:

  ab.py /tmp/cls GcLruCache 7 20 \\
      'before=FASTPATH_GC_MODE=concurrent /tmp/vm-before -Xms64m -Xmx64m' \\
      'after=FASTPATH_GC_MODE=concurrent target/release/fastpath-vm -Xms64m -Xmx64m'
"""
import os
import re
import shlex
import statistics
import subprocess
import sys


def run_harness(command, classes, harness_args):
    """Runs `command` (leading VAR=value words set the environment) on `Harness
    harness_args...` from `classes`; returns the finished process and its iteration
    times in ms (empty if the run failed)."""
    argv = shlex.split(command)
    env = dict(os.environ)
    while argv and "=" in argv[0] and not argv[0].startswith(("/", ".")):
        var, value = argv.pop(0).split("=", 1)
        env[var] = value
    argv += ["-cp", classes, "Harness", *harness_args]
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    times = [int(line.split()[3]) / 1e6 for line in done.stdout.splitlines() if " iteration " in line]
    return done, times


def run_once(command, classes, program, iterations):
    """Runs one command; returns (mean of the second half, median iteration, cycles) in ms."""
    done, times = run_harness(command, classes, [program, str(iterations)])
    if done.returncode != 0 or not times:
        sys.exit(f"ab.py: {command!r} failed (status {done.returncode}):\n{done.stderr[-2000:]}")
    half = times[len(times) // 2:]
    cycles = re.search(r"gc: (\d+) cycles", done.stderr)
    return statistics.mean(half), statistics.median(half), cycles.group(1) if cycles else "-"


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    classes, program = sys.argv[1], sys.argv[2]
    rounds, iterations = int(sys.argv[3]), int(sys.argv[4])
    sides = []
    for spec in sys.argv[5:]:
        label, sep, command = spec.partition("=")
        if not sep or not command:
            sys.exit(f"ab.py: {spec!r} is not label=command")
        sides.append((label, command))
    runs = {label: [] for label, _ in sides}
    for _ in range(rounds):
        for label, command in sides:
            runs[label].append(run_once(command, classes, program, iterations))
    for label, rs in runs.items():
        means = [r[0] for r in rs]
        print(
            f"{program} {label}: {statistics.median(means):.2f} ms"
            f" (rounds {' '.join(f'{m:.2f}' for m in means)};"
            f" median iteration {statistics.median(r[1] for r in rs):.2f} ms;"
            f" cycles {' '.join(r[2] for r in rs)})"
        )


if __name__ == "__main__":
    main()
