#!/usr/bin/env python3
"""Instructions per compiled method, and per instruction, of one benchmark program (Callgrind).

Runs the program once under Callgrind with `--dump-instr=yes` and
`FASTPATH_VM_JIT_DUMP='*'` (every compiled method's code bytes and the
address it was installed at), then joins the two: the instructions each
compiled method ran per iteration, most first, and for each method a listing
(objdump's disassembly of its code bytes) with every executed instruction's
count per iteration, written to OUT/<method>.ann. Compilation, the
interpreter and the runtime are in the total, not in the methods.

usage: jitprof.py CLASSES PROGRAM ITERATIONS OUT [VM [VM-ARGS ...]]

CLASSES is a directory of the compiled programs (`javac --release 17 -d
CLASSES crates/fastpath-vm/bench/java/*.java`); VM defaults to
target/release/fastpath-vm, VM-ARGS to `-Xbatch -Xms64m -Xmx64m` (compiled at
once, so that a count is one of compiled code); the collector is the passive
one. Needs valgrind and objdump. Example:

  jitprof.py /tmp/cls Towers 4 /tmp/jp
  grep -c . /tmp/jp/Towers.move*.ann
"""

import collections
import os
import re
import subprocess
import sys


def methods(dump_text):
    """(name, start, end, code bytes) of each compiled method in the dump."""
    out = []
    code = None
    hexlines = None
    for line in dump_text.splitlines():
        m = re.match(r"jit dump: (\S+) (.*) installed at (0x[0-9a-f]+)\.\.(0x[0-9a-f]+)", line)
        if m:
            out.append((m.group(1) + " " + m.group(2), int(m.group(3), 16), int(m.group(4), 16), code))
            code = None
            continue
        if line.startswith("; ---- code bytes"):
            hexlines = []
            continue
        if hexlines is not None:
            if line.startswith(";") or line.startswith("jit"):
                code = bytes.fromhex("".join(hexlines))
                hexlines = None
            else:
                hexlines.append(line.strip())
    return out


def costs(path):
    """Self Ir per instruction address from a Callgrind file (positions: instr line)."""
    cost = collections.Counter()
    addr = line_no = 0
    skip = False

    def pos(tok, prev):
        if tok == "*":
            return prev
        if tok[0] in "+-":
            return prev + int(tok, 0)
        return int(tok, 0)

    with open(path) as f:
        for line in f:
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                # A call's next cost line is its inclusive cost: not the caller's own.
                skip = skip or line.startswith("calls=")
                continue
            p = line.split()
            addr, line_no = pos(p[0], addr), pos(p[1], line_no)
            if skip:
                skip = False
                continue
            if len(p) > 2:
                cost[addr] += int(p[2])
    return cost


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    classes, program, iterations, out = sys.argv[1:5]
    iters = int(iterations)
    if iters < 1:
        sys.exit("ITERATIONS must be at least 1")
    vm = sys.argv[5:] or ["target/release/fastpath-vm", "-Xbatch", "-Xms64m", "-Xmx64m"]
    if len(vm) == 1:
        vm += ["-Xbatch", "-Xms64m", "-Xmx64m"]
    os.makedirs(out, exist_ok=True)
    cg = os.path.join(out, "callgrind.out")
    env = dict(os.environ, FASTPATH_VM_JIT_DUMP="*", FASTPATH_GC_MODE="passive")
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--callgrind-out-file=" + cg]
    cmd += vm + ["-cp", classes, "Harness", program, str(iters)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    cost = costs(cg)
    total = sum(cost.values())
    rows = []
    for name, lo, hi, code in methods(run.stdout + run.stderr):
        mine = {a - lo: c for a, c in cost.items() if lo <= a < hi}
        rows.append((sum(mine.values()), name))
        if not mine or code is None:
            continue
        base = os.path.join(out, re.sub(r"[^A-Za-z0-9_.]", "_", name)[:100])
        with open(base + ".bin", "wb") as f:
            f.write(code)
        asm = subprocess.run(
            ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", base + ".bin"],
            capture_output=True, text=True, check=True,
        ).stdout
        with open(base + ".ann", "w") as f:
            for line in asm.splitlines():
                m = re.match(r"\s*([0-9a-f]+):\s*(?:[0-9a-f]{2} )+\s*(.*)", line)
                if m and int(m.group(1), 16) in mine:
                    at = int(m.group(1), 16)
                    f.write(f"{mine[at] / iters:14.2f} {at:#07x}  {m.group(2)}\n")
    rows.sort(reverse=True)
    print(f"{program}: {total / iters / 1e6:.1f} M instructions an iteration, "
          f"{sum(r[0] for r in rows) / iters / 1e6:.1f} M in compiled code")
    for c, name in rows:
        if c:
            print(f"{c / iters / 1e6:10.2f} M  {name}")


if __name__ == "__main__":
    main()
