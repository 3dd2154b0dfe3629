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
#                      a "# skipped" line) when there is no JDK.
#   static_id FIELD    the id a static field of Collections holds
#   arr_bytes N        bytes of an Object[N] under compressed oops
#                      (16-byte header, 4-byte slots, 8-byte alignment)
#   tables_ok SNAP     every table of docs/inspect.md in snapshot directory
#                      SNAP (and its threads' locals) follows the views'
#                      convention: a "# " header, then rows of as many TAB
#                      separated columns, numbers plain integers; prints the
#                      first offender and fails

collections_dump() {
  local c
  for c in java javac jcmd; do
    command -v "$c" >/dev/null || { echo "# skipped: no $c"; exit 0; }
  done
  mkdir -p "$TESTTMP/classes"
  if ! timeout 120 javac -d "$TESTTMP/classes" "$ROOT/tests/programs/java/Collections.java" 2>"$TESTTMP/javac.err"; then
    sed 's/^/# /' "$TESTTMP/javac.err"
    echo "not ok - javac Collections.java"
    exit 0
  fi
  OUT=$TESTTMP/coll.jvm
  if ! jvm_start "$OUT" -XX:+UseSerialGC -Xmx256m -XX:+UseCompressedOops \
      --add-opens java.base/java.util=ALL-UNNAMED \
      --add-opens java.base/java.util.concurrent=ALL-UNNAMED -cp "$TESTTMP/classes" Collections; then
    sed 's/^/# jvm: /' "$OUT"
    echo "not ok - Collections printed READY"
    exit 0
  fi
  DUMP=$TESTTMP/coll.hprof
  jvm_stable_dump coll "$JPID" "$DUMP" || exit 0
  kill "$JPID" 2>/dev/null
  wait "$JPID" 2>/dev/null
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
