#!/usr/bin/env python3
"""Writes ../WideJumps.java: a loop whose body compiles to more than 32 KiB of bytecode, so
javac emits goto_w for the branches that span it, beside a plain switch. Run from anywhere:
    python3 tools/gen_wide_jumps.py
The output is committed; rerunning this reproduces it byte for byte."""
import os

HEADER = """// tags: bytecode
// release: 11
// A loop whose body compiles to more than 32 KiB of bytecode, so javac emits goto_w for the
// branches that span it (a 16-bit branch offset cannot), and a switch whose cases are far
// apart. The body is a long, generated run of integer mixing statements
// (tools/gen_wide_jumps.py writes this file).
public class WideJumps {
    static int mix(int rounds) {
        int a = 1;
        int b = 2;
        for (int i = 0; i < rounds; i++) {"""

def main():
    lines = HEADER.split("\n")
    k = 0
    for _ in range(1100):
        stmts = []
        for _ in range(4):
            c = 100003 + k * 7919
            stmts.append(f"a = a * 31 + {c};" if k % 2 == 0 else f"b ^= a + {c};")
            k += 1
        lines.append("            " + " ".join(stmts))
    lines += [
        "            if (b == 42) {",
        "                break;",
        "            }",
        "        }",
        "        return a ^ b;",
        "    }",
        "",
        "    static int far(int key) {",
        "        int x = key;",
        "        switch (key) {",
    ]
    for case in range(3):
        lines.append(f"            case {case}:")
        for line in range(120):
            lines.append(f"                x = x * 17 + {case * 1000 + line * 3 + 100000}; x ^= x >>> 3;")
        lines.append("                break;")
    lines += [
        "            default:",
        "                x = -1;",
        "        }",
        "        return x;",
        "    }",
        "",
        "    public static void main(String[] args) {",
        '        System.out.println("mix(1) = " + mix(1));',
        '        System.out.println("mix(50) = " + mix(50));',
        '        System.out.println("far " + far(0) + " " + far(1) + " " + far(2) + " " + far(3));',
        "    }",
        "}",
    ]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "WideJumps.java")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
