#!/usr/bin/env bash
# Verifies the corpus on HotSpot: each program is compiled with its `// release:` and run
# three times on each JDK that can load it (JDK 17 for releases <= 17, JDK 25 for all), once
# with -Xint and twice in the default (JIT) mode. Stdout, stderr and the exit status of every
# run must be identical, the exit status must be the program's `// exit:` (0 if absent), and
# the output must equal the recorded expectation in expected/ (written by --bless).
# The -Xint time on JDK 25 is reported and flagged above the program's budget (1 s; 2 s for
# programs tagged gc or thread).
#
# usage: check-hotspot.sh [--bless] [--runs N] [Name ...]     (no names: every program)
#   JAVAC   javac for every release   (default: JDK 25's, which accepts --release 8..25)
#   JAVA17  JDK 17's java             (default: java on PATH, if its version is 17)
#   JAVA25  JDK 25's java             (default: /usr/lib/jvm/temurin-25-jdk-amd64/bin/java)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
jdk25=/usr/lib/jvm/temurin-25-jdk-amd64/bin
JAVAC="${JAVAC:-$jdk25/javac}"
JAVA25="${JAVA25:-$jdk25/java}"
JAVA17="${JAVA17:-$(command -v java)}"
allowed_tags=" basic bytecode string exception clinit lambda collections numeric gc monitor thread oom stackoverflow concurrent "

bless=0
runs=3
names=()
while [ $# -gt 0 ]; do
    case "$1" in
        --bless) bless=1 ;;
        --runs) runs="$2"; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) names+=("${1%.java}") ;;
    esac
    shift
done
if [ ${#names[@]} -eq 0 ]; then
    for f in "$here"/*.java; do names+=("$(basename "$f" .java)"); done
fi
if ! "$JAVA17" -version 2>&1 | grep -q '"17\.'; then
    echo "note: $JAVA17 is not JDK 17; programs run on JDK 25 only" >&2
    JAVA17=""
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL $1: $2"; failures=$((failures + 1)); }

header() { # header <file> <key>: the value of the first `// key: value` line
    sed -n "s|^// $2: *||p" "$1" | head -n 1
}

for name in "${names[@]}"; do
    src="$here/$name.java"
    [ -f "$src" ] || { fail "$name" "no such file $src"; continue; }
    release="$(header "$src" release)"
    tags="$(header "$src" tags)"
    args="$(header "$src" args)"
    expect_exit="$(header "$src" exit)"; expect_exit="${expect_exit:-0}"
    [ -n "$release" ] || { fail "$name" "no // release: line"; continue; }
    [ -n "$tags" ] || { fail "$name" "no // tags: line"; continue; }
    bad_tag=0
    for t in $tags; do
        case "$allowed_tags" in *" $t "*) ;; *) fail "$name" "unknown tag $t"; bad_tag=1 ;; esac
    done
    [ $bad_tag -eq 0 ] || continue
    grep -q "^public class $name\b" "$src" || { fail "$name" "no 'public class $name'"; continue; }

    out="$work/$name"; mkdir -p "$out/classes"
    if ! "$JAVAC" -Xlint:-options --release "$release" -encoding UTF-8 -d "$out/classes" "$src" \
        >"$out/javac.log" 2>&1; then
        fail "$name" "javac --release $release failed:"; cat "$out/javac.log"; continue
    fi

    jdks=("25:$JAVA25")
    if [ "$release" -le 17 ] && [ -n "$JAVA17" ]; then jdks=("17:$JAVA17" "${jdks[@]}"); fi
    budget=1.0
    case " $tags " in *" gc "*|*" thread "*) budget=2.0 ;; esac
    ref=""
    xint_ms=""
    ok=1
    for jdk in "${jdks[@]}"; do
        v="${jdk%%:*}"; java="${jdk#*:}"
        for ((i = 1; i <= runs; i++)); do
            mode=""; [ $i -eq 1 ] && mode="-Xint"
            run="$out/jdk$v-$i"
            start=$(date +%s%N)
            # shellcheck disable=SC2086  # args is a list of JVM options
            timeout 60 "$java" $mode $args -cp "$out/classes" "$name" >"$run.out" 2>"$run.err" </dev/null
            echo $? >"$run.rc"
            ms=$(( ($(date +%s%N) - start) / 1000000 ))
            [ "$v" = 25 ] && [ $i -eq 1 ] && xint_ms=$ms
            rc=$(cat "$run.rc")
            if [ "$rc" != "$expect_exit" ]; then
                fail "$name" "JDK $v run $i ${mode:-jit}: exit $rc, expected $expect_exit"; ok=0
                head -n 5 "$run.err" | sed 's/^/    /'
            fi
            if [ -z "$ref" ]; then
                ref="$run"
            else
                for s in out err; do
                    if ! cmp -s "$ref.$s" "$run.$s"; then
                        fail "$name" "std$s of JDK $v run $i ${mode:-jit} differs from $(basename "$ref")"
                        diff "$ref.$s" "$run.$s" | head -n 10 | sed 's/^/    /'; ok=0
                    fi
                done
            fi
        done
    done
    exp="$here/expected/$name"
    if [ $bless -eq 1 ] && [ $ok -eq 1 ]; then
        mkdir -p "$here/expected"
        cp "$ref.out" "$exp.out"
        if [ -s "$ref.err" ]; then cp "$ref.err" "$exp.err"; else rm -f "$exp.err"; fi
    elif [ $bless -eq 0 ]; then
        if [ ! -f "$exp.out" ]; then
            fail "$name" "no expected/$name.out (run with --bless)"; ok=0
        else
            cmp -s "$exp.out" "$ref.out" || { fail "$name" "stdout differs from expected/$name.out"; diff "$exp.out" "$ref.out" | head -n 10 | sed 's/^/    /'; ok=0; }
            experr="$exp.err"; [ -f "$experr" ] || experr=/dev/null
            cmp -s "$experr" "$ref.err" || { fail "$name" "stderr differs from expected/$name.err"; diff "$experr" "$ref.err" | head -n 10 | sed 's/^/    /'; ok=0; }
        fi
    fi
    flag=""
    if [ -n "$xint_ms" ] && [ "$(echo "$xint_ms > $budget * 1000" | bc)" = 1 ]; then
        flag="  SLOW (budget ${budget}s)"
    fi
    status=ok; [ $ok -eq 1 ] || status=FAILED
    printf '%-24s release %-2s jdks %-5s -Xint(25) %5s ms  %s%s\n' "$name" "$release" \
        "$(for j in "${jdks[@]}"; do printf '%s' "${j%%:*},"; done | sed 's/,$//')" "$xint_ms" "$status" "$flag"
done
for exp in "$here"/expected/*.out; do
    [ -f "$exp" ] || continue
    base="$(basename "$exp" .out)"
    [ -f "$here/$base.java" ] || fail "$base" "expected/$base.out has no program"
done
echo "$failures failure(s) over ${#names[@]} program(s)"
[ $failures -eq 0 ]
