#!/usr/bin/env bash
# mkdump_retained.sh OUTDIR - a heap dump of known retained sizes.
#
# Compiles tests/programs/java/RetainedShape.java into OUTDIR/classes, runs it, waits
# for "ready", and writes
#   OUTDIR/retained.hprof   jcmd PID GC.heap_dump -all   (no GC first: the
#                           garbage and the weakly/softly reachable arrays
#                           are in the file)
#   OUTDIR/histogram.txt    jcmd PID GC.class_histogram -all
#   OUTDIR/gc.log           the JVM's -Xlog:gc (must show no collection)
#   OUTDIR/jvm.out          the program's output
# then kills the JVM.  Exit 0 only when the dump exists and no GC ran before
# it; 77 when java, javac or jcmd is missing; 1 on any other failure.  Every
# failure prints one line starting "mkdump_retained: ".
#
# Flags: SerialGC with a fixed 256 MiB heap and a 128 MiB young generation
# (eden about 100 MiB, the program allocates about 20 MiB: no collection
# runs), compressed oops and class pointers (the shallow sizes in
# RetainedShape.java assume them), the attach listener started at launch (no
# SIGQUIT handshake, works the same for root and other users).
set -u

fail() { echo "mkdump_retained: $1" >&2; exit "${2:-1}"; }

[ $# -eq 1 ] || fail "usage: mkdump_retained.sh OUTDIR"
for tool in java javac jcmd timeout; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool not found" 77
done

HERE=$(cd "$(dirname "$0")" && pwd -P) || fail "cannot find the script's directory"
mkdir -p "$1" || fail "cannot create $1"
OUT=$(cd "$1" && pwd -P) || fail "cannot enter $1"
case $OUT in
*'"'* | *$'\n'*) fail "OUTDIR must not contain a double quote or a newline: $OUT" ;;
esac
# The JVM writes the dump itself, relative to its own working directory:
# the path handed to jcmd is absolute, and quoted for jcmd's own argument
# parser (which splits at spaces).
DUMP=$OUT/retained.hprof
rm -rf "$OUT/classes" "$DUMP" "$DUMP.hwcache" "$OUT/histogram.txt" "$OUT/gc.log" "$OUT/jvm.out"
mkdir -p "$OUT/classes" || fail "cannot create $OUT/classes"

if ! timeout 120 javac -d "$OUT/classes" "$HERE/RetainedShape.java" >"$OUT/javac.err" 2>&1; then
  fail "javac RetainedShape.java failed: $(head -1 "$OUT/javac.err")"
fi

JPID=
cleanup() {
  if [ -n "$JPID" ]; then
    kill "$JPID" 2>/dev/null
    wait "$JPID" 2>/dev/null
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

(cd "$OUT" && exec java -XX:+UseSerialGC -Xms256m -Xmx256m -Xmn128m \
  -XX:+UseCompressedOops -XX:+UseCompressedClassPointers \
  -XX:+StartAttachListener -Xlog:gc:file="$OUT/gc.log" \
  -cp "$OUT/classes" RetainedShape) >"$OUT/jvm.out" 2>&1 &
JPID=$!

for _ in $(seq 1 600); do
  grep -qx 'ready' "$OUT/jvm.out" 2>/dev/null && break
  kill -0 "$JPID" 2>/dev/null || break
  sleep 0.1
done
grep -qx 'ready' "$OUT/jvm.out" 2>/dev/null ||
  fail "RetainedShape did not print ready within 60 s: $(head -1 "$OUT/jvm.out")"

if ! timeout 120 jcmd "$JPID" GC.heap_dump -all "\"$DUMP\"" >"$OUT/dump.out" 2>&1; then
  fail "jcmd $JPID GC.heap_dump -all $DUMP failed: $(tail -1 "$OUT/dump.out")"
fi
if ! timeout 120 jcmd "$JPID" GC.class_histogram -all >"$OUT/histogram.txt" 2>&1; then
  fail "jcmd $JPID GC.class_histogram -all failed: $(tail -1 "$OUT/histogram.txt")"
fi
cleanup
JPID=

[ -s "$DUMP" ] || fail "no dump at $DUMP: $(tail -1 "$OUT/dump.out")"
# A collection before the dump would have freed the garbage and cleared the
# WeakReference: the dump would not have the shape the tests expect.
if grep -q 'Pause' "$OUT/gc.log" 2>/dev/null; then
  fail "a GC ran before the dump ($(grep -m1 'Pause' "$OUT/gc.log")): garbage and weak referent may be gone"
fi
# shellcheck disable=SC2016 # a literal $ in the regular expression
grep -Eq ' 1000 +32000 +RetainedShape\$Garbage( |$)' "$OUT/histogram.txt" ||
  fail "histogram.txt does not show the 1000 unreachable RetainedShape\$Garbage"
exit 0
