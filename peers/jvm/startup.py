#!/usr/bin/env python3
"""Seed 000's second table on HotSpot: whole JVM starts per -XX:X86ICacheSync (JDK-8353558).

Starts src/startup/HelloStream.java N times per mode 0..5, with and without a JDK 25 AOT cache
(-XX:AOTCache, created first with -XX:AOTCacheOutput), every (mode, cache) configuration taking one
turn per round so a shared machine's drift lands on all alike, and prints hyperfine's columns:
mean ± σ, min … max, user and sys (the child's rusage from wait4). A mode the CPU lacks is reported
with HotSpot's own message, not run. Writes a Markdown table to stdout.

    RUNS=10 ./startup.py          JAVA_HOME selects the JDK (default: Temurin 25)
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

JAVA_HOME = os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64")
JAVA = os.path.join(JAVA_HOME, "bin", "java")
RUNS = int(os.environ.get("RUNS", "10"))
WARMUP = 2
HERE = os.path.dirname(os.path.abspath(__file__))
DIAG = ["-XX:+UnlockDiagnosticVMOptions"]


def start(args):
    """One JVM start: (wall s, user s, sys s, exit status, stderr)."""
    t = time.perf_counter()
    # HotSpot prints some start-up refusals ("CPU does not support …") on stdout.
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    err = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime, ru.ru_stime, p.returncode, err.decode(errors="replace")


def main():
    work = tempfile.mkdtemp(prefix="fastpath-jvm-startup-")
    classes = os.path.join(work, "classes")
    subprocess.run([os.path.join(JAVA_HOME, "bin", "javac"), "-d", classes,
                    os.path.join(HERE, "src", "startup", "HelloStream.java")], check=True)
    # A jar: the AOT cache refuses a class path with a non-empty directory.
    jar = os.path.join(work, "hello.jar")
    subprocess.run([os.path.join(JAVA_HOME, "bin", "jar"), "cf", jar, "-C", classes, "."], check=True)
    cp = ["-cp", jar, "HelloStream"]
    aot = os.path.join(work, "hello.aot")
    # JDK 25: one training run writes the cache (JEP 514, -XX:AOTCacheOutput).
    r = subprocess.run([JAVA, f"-XX:AOTCacheOutput={aot}"] + cp, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    have_aot = r.returncode == 0 and os.path.exists(aot)
    configs, missing = [], []
    for mode in range(6):
        probe = start([JAVA] + DIAG + [f"-XX:X86ICacheSync={mode}"] + cp)
        if probe[3] != 0:
            said = " / ".join(l.strip() for l in probe[4].splitlines() if l.strip()) or f"exit {probe[3]}"
            missing.append(f"X86ICacheSync={mode}: not run, HotSpot refuses it here: {said}")
            continue
        configs.append((mode, False))
        if have_aot:
            configs.append((mode, True))
    if not have_aot:
        missing.append("AOT cache: -XX:AOTCacheOutput failed: " + (r.stdout.strip().splitlines() or ["?"])[-1])
    samples = {c: [] for c in configs}
    for rnd in range(WARMUP + RUNS):
        for c in configs:
            mode, cached = c
            args = [JAVA] + DIAG + [f"-XX:X86ICacheSync={mode}"]
            if cached:
                args.append(f"-XX:AOTCache={aot}")
            s = start(args + cp)
            if s[3] != 0:
                sys.exit(f"mode {mode} aot={cached}: exit {s[3]}: {s[4]}")
            if rnd >= WARMUP:
                samples[c].append(s)
    base = statistics.median(w for w, *_ in samples[(2, False)]) if (2, False) in samples else None
    print(f"JVM start, HelloStream, {RUNS} runs per row after {WARMUP} warm-up rounds, rows interleaved; "
          f"{subprocess.run([JAVA, '-version'], capture_output=True, text=True).stderr.splitlines()[1]}")
    print()
    print("| X86ICacheSync | AOT cache | mean ± σ [ms] | median [ms] | min … max [ms] | user [ms] | sys [ms] | median vs mode 2 |")
    print("|---|---|---|---|---|---|---|---|")
    for c in configs:
        w = [x[0] * 1e3 for x in samples[c]]
        u = statistics.mean(x[1] for x in samples[c]) * 1e3
        s = statistics.mean(x[2] for x in samples[c]) * 1e3
        med = statistics.median(w)
        rel = f"{med / (base * 1e3):.3f}×" if base else "n/a"
        print(f"| {c[0]} | {'yes' if c[1] else 'no'} | {statistics.mean(w):.1f} ± {statistics.stdev(w):.1f} | "
              f"{med:.1f} | {min(w):.1f} … {max(w):.1f} | {u:.1f} | {s:.1f} | {rel} |")
    print()
    for m in missing:
        print(f"- {m}")
    print("- mode 2 without the cache (HotSpot's default here) is the baseline; the machine is shared: "
          "compare rows of one run only")


if __name__ == "__main__":
    main()
