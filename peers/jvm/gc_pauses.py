#!/usr/bin/env python3
"""HotSpot's pauses beside `fastpath gc --only pauses` (issue 9).

Runs GcPauses.java (N mutator threads churning a half-live heap shaped like the lab's) under
Shenandoah with -Xlog:safepoint,gc, keeps the log lines of the churn (between the uptimes the
program prints), and reports each part of a safepoint the way the lab does:
  Reaching safepoint (TTSP), At safepoint, Leaving safepoint, Total: p50/p99/max, in ms,
for Shenandoah's own pause operations and for every safepoint, and the GC log's "Pause ..." times
(which are at-safepoint times).

  python3 peers/jvm/gc_pauses.py --threads 1,2,4 --seconds 10 --heap-mib 256
Needs JDK 25 (JAVA_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64); no Maven: the program runs
in source-file mode.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "src/main/java/fastpath/peers/GcPauses.java")

SAFEPOINT = re.compile(
    r'^\[(?P<up>[\d.]+)s\].*\[safepoint\s*\] Safepoint "(?P<op>[^"]+)".*'
    r"Reaching safepoint: (?P<reach>\d+) ns.*At safepoint: (?P<at>\d+) ns"
    r"(?:.*Leaving safepoint: (?P<leave>\d+) ns)?.*Total: (?P<total>\d+) ns"
)
GC_PAUSE = re.compile(r"^\[(?P<up>[\d.]+)s\].*\[gc\s*\] GC\(\d+\) (?P<what>Pause [A-Za-z ()-]+?) (?P<ms>[\d.]+)ms")
WINDOW = re.compile(r"churn (?P<edge>starts|ends) at uptime (?P<ms>\d+) ms")


def percentile(sorted_values, p):
    """The lab's percentile (Commons Math default, as JMH), so the columns compare."""
    n = len(sorted_values)
    if n == 1:
        return sorted_values[0]
    pos = p / 100.0 * (n + 1)
    if pos < 1:
        return sorted_values[0]
    if pos >= n:
        return sorted_values[-1]
    lower = sorted_values[int(pos) - 1]
    upper = sorted_values[int(pos)]
    return lower + (pos - int(pos)) * (upper - lower)


def summary(values):
    if not values:
        return "0 - - -"
    v = sorted(values)
    return f"{len(v)} {percentile(v, 50):.3f} {percentile(v, 99):.3f} {v[-1]:.3f}"


def parse(log_lines, start_s, end_s):
    """Safepoints and GC pauses inside [start_s, end_s] of JVM uptime."""
    safepoints, gc_pauses = [], []
    for line in log_lines:
        m = SAFEPOINT.match(line)
        if m and start_s <= float(m["up"]) <= end_s:
            leave = int(m["leave"] or 0) / 1e6
            safepoints.append((m["op"], int(m["reach"]) / 1e6, int(m["at"]) / 1e6, leave, int(m["total"]) / 1e6))
            continue
        m = GC_PAUSE.match(line)
        if m and start_s <= float(m["up"]) <= end_s:
            gc_pauses.append((m["what"], float(m["ms"])))
    return safepoints, gc_pauses


def run(java, threads, seconds, heap_mib, extra):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "gc.log")
        cmd = [
            java,
            "-XX:+UseShenandoahGC",
            f"-Xms{heap_mib}m",
            f"-Xmx{heap_mib}m",
            "-XX:+AlwaysPreTouch",
            f"-Xlog:safepoint=info,gc=info:file={log}:uptime,level,tags",
            *extra,
            SOURCE,
            str(threads),
            str(seconds),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        edges = {m["edge"]: int(m["ms"]) / 1e3 for m in WINDOW.finditer(out)}
        with open(log) as f:
            lines = f.readlines()
    result = [l for l in out.splitlines() if "ops/s" in l]
    return parse(lines, edges["starts"], edges["ends"]), result, cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="4", help="comma list of mutator thread counts (default 4)")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--heap-mib", type=int, default=256)
    ap.add_argument("--jvm-arg", action="append", default=[], help="extra JVM option (repeatable)")
    a = ap.parse_args()
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr/lib/jvm/temurin-25-jdk-amd64"), "bin", "java")
    print("threads  pauses          part                          n     p50     p99     max  (ms)")
    for threads in [int(t) for t in a.threads.split(",")]:
        (safepoints, gc_pauses), result, cmd = run(java, threads, a.seconds, a.heap_mib, a.jvm_arg)
        print(f"# {' '.join(cmd)}", file=sys.stderr)
        for label, rows in [
            ("shenandoah ops", [s for s in safepoints if s[0].startswith("Shenandoah")]),
            ("all safepoints", safepoints),
        ]:
            for i, part in [(1, "Reaching safepoint (TTSP)"), (2, "At safepoint"), (3, "Leaving safepoint"), (4, "Total")]:
                print(f"{threads:7}  {label:14}  {part:28}  {summary([r[i] for r in rows])}")
        for what in sorted({w for w, _ in gc_pauses}):
            print(f"{threads:7}  {'gc log':14}  {what:28}  {summary([ms for w, ms in gc_pauses if w == what])}")
        ops = sorted({s[0] for s in safepoints})
        print(f"{threads:7}  operations: {', '.join(ops) or '-'}; {result[0] if result else ''}")


if __name__ == "__main__":
    main()
