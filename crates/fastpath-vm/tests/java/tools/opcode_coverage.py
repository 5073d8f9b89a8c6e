#!/usr/bin/env python3
"""Reports which JVM opcodes the compiled corpus contains and which it lacks, from `javap -c`
over every program compiled with its release. javap prints a `wide`-prefixed instruction as
`<name>_w` (iload_w, iinc_w, ...). javac never emits nop, swap, jsr, ret or jsr_w, so those
are expected to be missing.
    python3 tools/opcode_coverage.py"""
import glob
import os
import re
import subprocess
import sys
import tempfile

JDK = os.environ.get("JAVA_HOME25", "/usr/lib/jvm/temurin-25-jdk-amd64")
CORPUS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ALL = """nop aconst_null iconst_m1 iconst_0 iconst_1 iconst_2 iconst_3 iconst_4 iconst_5 lconst_0
lconst_1 fconst_0 fconst_1 fconst_2 dconst_0 dconst_1 bipush sipush ldc ldc_w ldc2_w iload lload
fload dload aload iload_0 iload_1 iload_2 iload_3 lload_0 lload_1 lload_2 lload_3 fload_0 fload_1
fload_2 fload_3 dload_0 dload_1 dload_2 dload_3 aload_0 aload_1 aload_2 aload_3 iaload laload
faload daload aaload baload caload saload istore lstore fstore dstore astore istore_0 istore_1
istore_2 istore_3 lstore_0 lstore_1 lstore_2 lstore_3 fstore_0 fstore_1 fstore_2 fstore_3
dstore_0 dstore_1 dstore_2 dstore_3 astore_0 astore_1 astore_2 astore_3 iastore lastore fastore
dastore aastore bastore castore sastore pop pop2 dup dup_x1 dup_x2 dup2 dup2_x1 dup2_x2 swap iadd
ladd fadd dadd isub lsub fsub dsub imul lmul fmul dmul idiv ldiv fdiv ddiv irem lrem frem drem
ineg lneg fneg dneg ishl lshl ishr lshr iushr lushr iand land ior lor ixor lxor iinc i2l i2f i2d
l2i l2f l2d f2i f2l f2d d2i d2l d2f i2b i2c i2s lcmp fcmpl fcmpg dcmpl dcmpg ifeq ifne iflt ifge
ifgt ifle if_icmpeq if_icmpne if_icmplt if_icmpge if_icmpgt if_icmple if_acmpeq if_acmpne goto
jsr ret tableswitch lookupswitch ireturn lreturn freturn dreturn areturn return getstatic
putstatic getfield putfield invokevirtual invokespecial invokestatic invokeinterface
invokedynamic new newarray anewarray arraylength athrow checkcast instanceof monitorenter
monitorexit wide multianewarray ifnull ifnonnull goto_w jsr_w""".split()
WIDE = {"iload_w", "lload_w", "fload_w", "dload_w", "aload_w", "istore_w", "lstore_w", "fstore_w",
        "dstore_w", "astore_w", "iinc_w", "ret_w"}
NEVER = {"nop", "swap", "jsr", "ret", "jsr_w"}


def main():
    used = {}
    with tempfile.TemporaryDirectory() as tmp:
        for src in sorted(glob.glob(os.path.join(CORPUS, "*.java"))):
            release = "25"
            with open(src, encoding="utf-8") as f:
                for line in f:
                    m = re.match(r"// release: *(\d+)", line)
                    if m:
                        release = m.group(1)
                        break
            out = os.path.join(tmp, os.path.basename(src)[:-5])
            subprocess.run([f"{JDK}/bin/javac", "-nowarn", "-Xlint:-options", "--release", release, "-d", out, src],
                           check=True, capture_output=True)
            classes = glob.glob(os.path.join(out, "**", "*.class"), recursive=True)
            text = subprocess.run([f"{JDK}/bin/javap", "-c", "-p"] + classes, check=True, capture_output=True,
                                  text=True).stdout
            for m in re.finditer(r"^\s+\d+: ([a-z_0-9]+)", text, re.M):
                op = m.group(1)
                if op in WIDE:
                    used["wide"] = used.get("wide", 0) + 1
                used[op] = used.get(op, 0) + 1
    missing = [op for op in ALL if op not in used]
    print("opcodes used: %d of %d" % (len([op for op in ALL if op in used]), len(ALL)))
    print("wide-prefixed forms used: " + " ".join(sorted(op for op in used if op in WIDE)))
    print("missing, never emitted by javac: " + " ".join(op for op in missing if op in NEVER))
    unexpected = [op for op in missing if op not in NEVER]
    print("missing, emitted by javac: " + (" ".join(unexpected) if unexpected else "none"))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
