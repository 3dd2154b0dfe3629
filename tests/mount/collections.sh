# collections.sh - the dump of tests/programs/java/Collections.java that
# t_collections*.sh share (source it after lib.sh and jvm.sh).
#
#   collections_dump   compiles and runs Collections.java (SerialGC, 256 MiB,
#                      compressed oops, --add-opens so it can print its own
#                      collections' capacities), takes a stable dump with
#                      jcmd (jvm_stable_dump) and mounts it.  Sets DUMP, OUT
#                      (the program's output: its "coll", "dup", "zeros",
#                      "boxes" lines), S (the mounted snapshot), STATICS (its
#                      classes/Collections/statics); the JVM is gone on
#                      return.  Prints "ok" lines; exits the script (0, with
#                      a "# skipped" line) when there is no JDK.  Made once
#                      per tests/run.sh run (HF_SHARED) and copied.
#   static_id FIELD    the id a static field of Collections holds
#   arr_bytes N        bytes of an Object[N] under compressed oops
#                      (16-byte header, 4-byte slots, 8-byte alignment)
#   tables_ok SNAP     every table of docs/inspect.md in snapshot directory
#                      SNAP (and its threads' locals) follows the views'
#                      convention: a "# " header, then rows of as many TAB
#                      separated columns, numbers plain integers; prints the
#                      first offender and fails

# collections_make DIR: compiles Collections.java into DIR/classes, runs it
# and dumps it: DIR/coll.hprof, DIR/coll.h1 (jvm_stable_dump), DIR/coll.jvm
# (its output).  The JVM is gone on return; non-zero after a "not ok" line.
collections_make() {
  local dir=$1 ok
  mkdir -p "$dir/classes"
  if ! timeout 120 javac -d "$dir/classes" "$ROOT/tests/programs/java/Collections.java" 2>"$dir/javac.err"; then
    sed 's/^/# /' "$dir/javac.err"
    echo "not ok - javac Collections.java"
    return 1
  fi
  if ! jvm_start "$dir/coll.jvm" -XX:+UseSerialGC -Xmx256m -XX:+UseCompressedOops \
      --add-opens java.base/java.util=ALL-UNNAMED \
      --add-opens java.base/java.util.concurrent=ALL-UNNAMED -cp "$dir/classes" Collections; then
    sed 's/^/# jvm: /' "$dir/coll.jvm"
    echo "not ok - Collections printed READY"
    return 1
  fi
  TESTTMP=$dir jvm_stable_dump coll "$JPID" "$dir/coll.hprof"
  ok=$?
  kill "$JPID" 2>/dev/null
  wait "$JPID" 2>/dev/null
  return "$ok"
}

# Under tests/run.sh (HF_SHARED set) the dump is made once per run, under a
# lock, and each test gets a copy of its own (a mount writes its index file
# beside the dump) and the making's TAP lines.
collections_dump() {
  local c dir f
  for c in java javac jcmd; do
    command -v "$c" >/dev/null || { echo "# skipped: no $c"; exit 0; }
  done
  if [ -z "${HF_SHARED:-}" ]; then
    collections_make "$TESTTMP" || exit 0
  else
    dir=$HF_SHARED/collections
    mkdir -p "$dir"
    (
      flock 9
      [ -s "$dir/made" ] || { collections_make "$dir" >"$dir/made.tap" 2>&1; echo $? >"$dir/made"; }
    ) 9>"$dir/lock"
    cat "$dir/made.tap"
    [ "$(cat "$dir/made")" = 0 ] || exit 0
    for f in hprof h1 jvm; do cp "$dir/coll.$f" "$TESTTMP/coll.$f" || exit 0; done
  fi
  OUT=$TESTTMP/coll.jvm
  DUMP=$TESTTMP/coll.hprof
  hf_mount "$DUMP" || { echo "not ok - mount the Collections dump"; exit 0; }
  S=$MNT/latest
  STATICS=$(cat "$S/classes/Collections/statics")
}

static_id() { awk -v f="$1" '$1 == f { print $3 }' <<<"$STATICS"; }

arr_bytes() { echo $(( (16 + 4 * $1 + 7) / 8 * 8 )); }

INSPECT_TABLES="collections/instances collections/classes waste/collections waste/arrays
  waste/boxed waste/zeros classloaders duplicate-classes thread-overview"

tables_ok() {
  local snap=$1 f
  for f in $INSPECT_TABLES; do
    [ -e "$snap/$f" ] && echo "$snap/$f"
  done | cat - <(ls -d "$snap"/../../threads/*/locals 2>/dev/null) | while read -r f; do
    awk -F '\t' 'NR == 1 { n = NF; if (substr($0, 1, 2) != "# ") { print FILENAME ": no # header"; exit 1 } next }
      NF != n { print FILENAME ": row " NR ": " NF " columns, not " n; exit 1 }
      { for (i = 1; i < NF; i++) if ($i !~ /^(-?[0-9]+|[0-9]+\.[0-9][0-9]|0x[0-9a-f]+|[a-z-]+)$/ && i < NF - 1) {
          print FILENAME ": row " NR ": column " i ": " $i; exit 1 } }' "$f" || return 1
  done
}
