# jvm.sh - helpers for mount tests that run a JVM program of ours and take
# the JVM's own class histogram as the oracle (source it after lib.sh).
#
#   jcmd_hist <RAW             jcmd's GC.class_histogram as NAME<TAB>COUNT<TAB>BYTES
#   heapfs_hist <HISTOGRAM     a heapfs histogram in the same form
#   jvm_start OUT JAVA-ARGS... starts java in the background (output to OUT;
#                              sets JPID, killed on exit) and waits for READY
#   jvm_wait_line OUT LINE PID waits (60 s) for a line starting LINE in OUT
#   jvm_stable_dump L PID DUMP histogram, GC.heap_dump, histogram until both
#                              histograms agree; leaves $TESTTMP/L.h1
#   hist_equal L HISTOGRAM     heapfs's HISTOGRAM equals L.h1, class by class
#   heapshape_dump L [FLAGS...] tests/programs/java/HeapShape.java's heap from a
#                              JVM with FLAGS: $TESTTMP/L.hprof, L.h1, L.h1.raw;
#                              without FLAGS made once per tests/run.sh run
#
# Both histogram forms: display names (byte[], java.lang.Object[]), hidden
# classes' "/0x" as "+0x", duplicates (several loaders) summed, sorted by
# name (LC_ALL=C) for join.
TAB=$(printf '\t')

# jcmd's histogram as "name<TAB>instances<TAB>bytes", names in heapfs's
# display form, hidden-class "/0x" as "+0x" (the form HPROF stores).
jcmd_hist() {
  awk '
    $1 ~ /^[0-9]+:$/ {
      n = $2; b = $3; name = $0
      sub(/^ *[0-9]+: +[0-9]+ +[0-9]+ +/, "", name)
      sub(/ \([^)]*\)$/, "", name)
      dims = 0
      while (substr(name, 1, 1) == "[") { dims++; name = substr(name, 2) }
      if (dims > 0) {
        c = substr(name, 1, 1)
        if (c == "L") name = substr(name, 2, length(name) - 2)
        else if (c == "B") name = "byte"
        else if (c == "C") name = "char"
        else if (c == "D") name = "double"
        else if (c == "F") name = "float"
        else if (c == "I") name = "int"
        else if (c == "J") name = "long"
        else if (c == "S") name = "short"
        else if (c == "Z") name = "boolean"
        for (i = 0; i < dims; i++) name = name "[]"
      }
      if (match(name, /\/0x[0-9a-f]+$/)) name = substr(name, 1, RSTART - 1) "+" substr(name, RSTART + 1)
      cnt[name] += n; byt[name] += b
    }
    END { for (k in cnt) printf "%s\t%d\t%d\n", k, cnt[k], byt[k] }' | LC_ALL=C sort -t "$TAB" -k1,1
}

# heapfs's histogram in the same form: unescape, drop "@0xID", sum by name.
heapfs_hist() {
  awk -F'\t' '
    /^#/ { next }
    {
      n = $1; b = $2; name = $3
      sub(/@0x[0-9a-fA-F]+$/, "", name)
      gsub(/%2F/, "/", name); gsub(/%2E/, ".", name); gsub(/%25/, "%", name)
      if (match(name, /\/0x[0-9a-f]+$/)) name = substr(name, 1, RSTART - 1) "+" substr(name, RSTART + 1)
      cnt[name] += n; byt[name] += b
    }
    END { for (k in cnt) printf "%s\t%d\t%d\n", k, cnt[k], byt[k] }' | LC_ALL=C sort -t "$TAB" -k1,1
}

jvm_wait_line() {
  local out=$1 line=$2 pid=$3
  for _ in $(seq 1 600); do
    grep -q "^$line" "$out" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  grep -q "^$line" "$out" 2>/dev/null
}

jvm_start() {
  local out=$1; shift
  java "$@" >"$out" 2>&1 &
  JPID=$!
  HF_PIDS+=("$JPID")
  jvm_wait_line "$out" READY "$JPID"
}

# The histogram is taken just before and just after the dump and the pair is
# retaken until both agree, so that the dump is known to hold exactly that
# heap (the first attach and the Cleaner thread change a few JDK objects).
# java.lang.Class is left out of L.h1: HPROF writes class objects as CLASS
# DUMP records, and heapfs's size for them is approximate.
jvm_stable_dump() {
  local l=$1 jpid=$2 dump=$3 attempt
  timeout 60 jcmd "$jpid" VM.version >/dev/null 2>&1   # first attach: starts the Attach Listener
  for attempt in 1 2 3 4; do
    rm -f "$dump"
    timeout 120 jcmd "$jpid" GC.class_histogram >"$TESTTMP/$l.h1.raw" 2>&1 || continue
    timeout 120 jcmd "$jpid" GC.heap_dump -all=false "$dump" >"$TESTTMP/$l.dump.out" 2>&1 || continue
    timeout 120 jcmd "$jpid" GC.class_histogram >"$TESTTMP/$l.h2.raw" 2>&1 || continue
    jcmd_hist <"$TESTTMP/$l.h1.raw" | grep -v '^java\.lang\.Class	' >"$TESTTMP/$l.h1"
    jcmd_hist <"$TESTTMP/$l.h2.raw" | grep -v '^java\.lang\.Class	' >"$TESTTMP/$l.h2"
    if [ -s "$dump" ] && cmp -s "$TESTTMP/$l.h1" "$TESTTMP/$l.h2"; then
      echo "ok - $l: jcmd gave a stable histogram and a heap dump ($(stat -c %s "$dump") bytes)"
      return 0
    fi
    echo "# $l: attempt $attempt: histograms before and after the dump differ, retrying:"
    diff "$TESTTMP/$l.h1" "$TESTTMP/$l.h2" | grep "^[<>]" | head -4 | sed "s/^/#   /"
    sleep 1
  done
  sed 's/^/# jcmd: /' "$TESTTMP/$l.dump.out"
  diff "$TESTTMP/$l.h1" "$TESTTMP/$l.h2" | head -10 | sed 's/^/# /'
  echo "not ok - $l: jcmd gave a stable histogram and a heap dump"
  return 1
}

# hist_equal L HISTOGRAM: heapfs's HISTOGRAM (leaves it as $TESTTMP/L.hf)
# against jcmd's $TESTTMP/L.h1: every class's instance count and bytes.
hist_equal() {
  local l=$1 hist=$2 n
  heapfs_hist <"$hist" | grep -v '^java\.lang\.Class	' >"$TESTTMP/$l.hf"
  LC_ALL=C join -t "$TAB" -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$TESTTMP/$l.h1" "$TESTTMP/$l.hf" >"$TESTTMP/$l.joined"
  n=$(wc -l <"$TESTTMP/$l.joined")
  awk -F '\t' '$2 != $4 { printf "# count differs: %s: jcmd %s, heapfs %s\n", $1, $2, $4 }' "$TESTTMP/$l.joined" >"$TESTTMP/$l.cdiff"
  head -20 "$TESTTMP/$l.cdiff"
  if [ -s "$TESTTMP/$l.cdiff" ] || [ "$n" -lt 100 ]; then
    echo "not ok - $l: instance counts equal jcmd's for all $n classes ($(wc -l <"$TESTTMP/$l.cdiff") differ)"
  else
    echo "ok - $l: instance counts equal jcmd's for all $n classes"
  fi
  awk -F '\t' '$3 != $5 { printf "# bytes differ: %s: %s instances, jcmd %s, heapfs %s\n", $1, $2, $3, $5 }' \
    "$TESTTMP/$l.joined" >"$TESTTMP/$l.bdiff"
  head -20 "$TESTTMP/$l.bdiff"
  check_eq "$l: bytes equal jcmd's for all $n classes" "0" "$(wc -l <"$TESTTMP/$l.bdiff")"
}

# heapshape_make DIR L [FLAGS...]: compiles HeapShape.java into DIR/classes
# (once), runs it (SerialGC, 256 MiB heap, FLAGS) and leaves its dump and
# histograms (jvm_stable_dump) as DIR/L.hprof, DIR/L.h1.raw and DIR/L.h1.
# The JVM is gone on return; non-zero after a "not ok" line on failure.
heapshape_make() {
  local dir=$1 l=$2 ok; shift 2
  if [ ! -e "$dir/classes/HeapShape.class" ]; then
    mkdir -p "$dir/classes"
    if ! timeout 120 javac -encoding UTF-8 -d "$dir/classes" "$ROOT/tests/programs/java/HeapShape.java" 2>"$dir/javac.err"; then
      sed 's/^/# /' "$dir/javac.err"
      echo "not ok - javac HeapShape.java"
      return 1
    fi
  fi
  if ! jvm_start "$dir/$l.jvm" -XX:+UseSerialGC -Xmx256m "$@" -cp "$dir/classes" HeapShape; then
    sed 's/^/# jvm: /' "$dir/$l.jvm"
    echo "not ok - $l: HeapShape printed READY"
    return 1
  fi
  TESTTMP=$dir jvm_stable_dump "$l" "$JPID" "$dir/$l.hprof"
  ok=$?
  kill "$JPID" 2>/dev/null
  wait "$JPID" 2>/dev/null
  return "$ok"
}

# heapshape_dump L [FLAGS...]: HeapShape's dump as $TESTTMP/L.hprof, L.h1.raw
# and L.h1.  Without FLAGS, under tests/run.sh (which sets HF_SHARED, a
# directory of the run), the dump is made once and shared by the tests that
# ask (t_jcmd.sh, t_hprofgen.sh): the first makes it under a lock, every one
# prints the making's TAP lines and gets a copy of its own (a mount writes
# its index file beside the dump).
heapshape_dump() {
  local l=$1; shift
  if [ $# -gt 0 ] || [ -z "${HF_SHARED:-}" ]; then
    heapshape_make "$TESTTMP" "$l" "$@"
    return
  fi
  local dir=$HF_SHARED/heapshape f
  mkdir -p "$dir"
  (
    flock 9
    [ -s "$dir/made" ] || { heapshape_make "$dir" default >"$dir/made.tap" 2>&1; echo $? >"$dir/made"; }
  ) 9>"$dir/lock"
  cat "$dir/made.tap"
  [ "$(cat "$dir/made")" = 0 ] || return 1
  for f in hprof h1.raw h1; do cp "$dir/default.$f" "$TESTTMP/$l.$f" || return 1; done
}
