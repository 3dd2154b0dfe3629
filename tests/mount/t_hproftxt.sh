#!/usr/bin/env bash
# t_hproftxt.sh - HPROF agent text output (java.hprof.txt) mounted.
#
# Every corpus file mounts clean (the internal checks hold: SITES and CPU
# rows name TRACEs that exist, CPU SAMPLES counts sum to no more than the
# total); traces/N and sites.agent are the file's own text, sites its rows; google-pprof reads
# heap.pprof with the totals of the SITES rows; a heap dump's histogram adds
# up to the file's sz= values; a field shadowed by a subclass's keeps both
# values; a broken file mounts with its problems listed.
. "$(dirname "$0")/lib.sh"

TXT=$CORPUS/hprof-txt
have_pprof=0
command -v google-pprof >/dev/null 2>&1 && have_pprof=1
[ $have_pprof = 1 ] || echo "# google-pprof unavailable: pprof checks skipped"
FLAMEGRAPH=$(command -v flamegraph.pl || command -v flamegraph || true)
[ -n "$FLAMEGRAPH" ] || echo "# flamegraph.pl unavailable (no Debian bookworm package): folded lines checked for form and sum only"

# The text of "TRACE N:" and its frame lines, as the file has it.
trace_text() { # FILE N
  awk -v n="$2" '$0 == "TRACE " n ":" || index($0, "TRACE " n ": ") == 1 {p=1; print; next}
                 p && /^\t/ {print; next} {p=0}' "$1"
}

for f in "$TXT"/*.txt; do
  b=$(basename "$f")
  if ! hf_mount "$f"; then echo "not ok - $b mounts"; continue; fi
  echo "ok - $b mounts"
  check_eq "$b: no errors (internal checks hold)" "" "$(cat "$MNT/errors")"
  check_eq "$b: one trace file per TRACE" "$(grep -c '^TRACE [0-9]*:' "$f")" "$(ls "$MNT/traces" | wc -l)"
  n=$(ls "$MNT/traces" | sort -n | sed -n 5p)
  check_eq "$b: traces/$n is the file's block" "$(trace_text "$f" "$n")" "$(cat "$MNT/traces/$n")"
  check_eq "$b: one thread per THREAD START" "$(grep -c '^THREAD START (' "$f")" "$(ls "$MNT/threads" | wc -l)"
  S=$MNT/snapshots/1
  if grep -q '^SITES BEGIN' "$f"; then
    check_eq "$b: sites.agent is the SITES block" "$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$f")" "$(cat "$S/sites.agent")"
    # sites: the block's rows as a table, "trace objs bytes objs bytes class"
    check_eq "$b: sites has the SITES rows" \
      "$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$f" | awk '$1 ~ /^[0-9]+$/ && NF >= 9 {
         print $8 "\t" $5 "\t" $4 "\t" $7 "\t" $6 "\t" $9 }')" "$(tail -n +2 "$S/sites")"
    # every SITES row names a trace that exists
    missing=$(awk -F'\t' 'NR > 1 {print $1}' "$S/sites" | sort -u | while read -r t; do
      [ -e "$MNT/traces/$t" ] || echo "$t"; done)
    check_eq "$b: SITES rows name existing traces" "" "$missing"
    live=$(sed -n 's/^live bytes: //p' "$S/info")
    check "$b: stacks.folded lines sum to the live bytes" awk -v want="$live" \
      '!/^[^ ].* [0-9]+$/ {bad=1} {s+=$NF} END {exit !(bad==0 && s==want)}' "$S/stacks.folded"
    if [ -n "$FLAMEGRAPH" ]; then
      check "$b: flamegraph.pl renders stacks.folded" sh -c "'$FLAMEGRAPH' '$S/stacks.folded' | grep -q '<svg'"
    fi
    if [ $have_pprof = 1 ]; then
      cp "$S/heap.pprof" "$TESTTMP/h.pprof"
      got=$(google-pprof --text --show_bytes --inuse_space "$TESTTMP/h.pprof" 2>/dev/null | head -1)
      check_eq "$b: google-pprof live bytes = SITES total" "Total: $live B" "$got"
      allocs=$(sed -n 's/^allocated objects: //p' "$S/info")
      got=$(google-pprof --text --alloc_objects "$TESTTMP/h.pprof" 2>/dev/null | head -1)
      check_eq "$b: google-pprof allocated objects = SITES total" "Total: $allocs objects" "$got"
      check "$b: google-pprof names Java frames" sh -c \
        "google-pprof --text --cum '$TESTTMP/h.pprof' 2>/dev/null | grep -q ' java\.lang\.'"
    fi
  fi
  if grep -q '^HEAP DUMP BEGIN' "$f"; then
    check_eq "$b: one class directory per CLS line" "$(grep -c '^CLS ' "$f")" "$(ls "$S/classes" | wc -l)"
    check_eq "$b: one object per CLS, OBJ and ARR line" "$(grep -c '^\(CLS\|OBJ\|ARR\) ' "$f")" "$(ls "$S/objects" | wc -l)"
    # the first OBJ with reference lines: each one is a refs/ symlink
    read -r id <<<"$(awk '/^OBJ /{o=$2; next} o && /^\t[a-zA-Z_$]/ {print o; exit} {o=""}' "$f")"
    want=$(awk -v id="$id" '$1=="OBJ" && $2==id {p=1; next} p && /^\t/ {print $1 " -> ../../0x" $2; next} {p=0}' "$f")
    got=$(cd "$S/objects/0x$id/refs" && for r in *; do echo "$r -> $(readlink "$r")"; done)
    check_eq "$b: refs of 0x$id are its reference lines" "$want" "$got"
    check "$b: objects link to their class" test -d "$S/objects/0x$id/class/"
    check_eq "$b: roots lists every ROOT line" "$(grep -c '^ROOT ' "$f")" "$(tail -n +2 "$S/roots" | wc -l)"
    check "$b: histogram lists classes" grep -q $'\tjava.lang.String$' "$S/histogram"
    check "$b: no strings file (the text has no string contents)" test ! -e "$S/strings"
    check_eq "$b: histogram bytes = the sum of the file's sz= values" \
      "$(awk 'match($0, /\(sz=[0-9]+/) { s += substr($0, RSTART + 4, RLENGTH - 4) } END { print s + 0 }' "$f")" \
      "$(awk '!/^#/ { s += $2 } END { print s + 0 }' "$S/histogram")"
    arr=$(grep -m1 '^ARR [0-9a-f]* (sz=[0-9]*, .*nelems=0,' "$f" | awk '{print $2}')
    if [ -n "$arr" ]; then
      check_eq "$b: ARR $arr with nelems=0 has its sz= as size" \
        "$(sed -n "s/^ARR $arr (sz=\([0-9]*\),.*/\1/p" "$f")" \
        "$(sed -n 's/^size: //p' "$S/objects/0x$arr/info")"
    fi
  fi
  if grep -q '^CPU SAMPLES BEGIN' "$f"; then
    total=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' "$S/cpu/samples.agent")
    sum=$(awk -F'\t' 'NR > 1 {s+=$2} END {print s}' "$S/cpu/samples")
    check "$b: CPU samples sum to no more than the total ($sum of $total)" test "$sum" -le "$total"
  fi
  if grep -q '^CPU TIME (ms) BEGIN' "$f"; then
    check_eq "$b: cpu/times.agent is the CPU TIME block" "$(sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$f")" "$(cat "$S/cpu/times.agent")"
    check_eq "$b: cpu/times has its rows: trace, count, percent with a dot, method" \
      "$(sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$f" | awk '$1 ~ /^[0-9]+$/ && NF >= 6 {
         p = $2; sub(/%$/, "", p); sub(/,/, ".", p); print $5 "\t" $4 "\t" p "\t" $6 }')" \
      "$(tail -n +2 "$S/cpu/times")"
  else
    check "$b: no cpu/times where the file has no CPU TIME (absent, not empty)" test ! -e "$S/cpu/times"
  fi
  hf_umount
done

# --- an older agent's form, CRLF, and broken blocks ---
V=$TESTTMP/v.hprof.txt
printf 'JAVA PROFILE 1.0.1, created Mon Jan  1 00:00:00 2001\r\n\r\n' > "$V"
printf 'THREAD START (obj=1a, id = 7, name="main", group="main")\r\n' >> "$V"
printf 'TRACE 1: (thread=7)\r\n\tA.b(A.java:3)\r\nTRACE 2: (thread=7)\r\n\t<empty>\r\n' >> "$V"
printf 'SITES BEGIN (ordered by live bytes) x\r\n    1 75.00%% 75.00%%  300 3 600 6 1 A\r\n' >> "$V"
printf '    2 25.00%% 100.00%% 100 1 100 1 9 B\r\n    3 broken\r\n' >> "$V"
printf 'CPU SAMPLES BEGIN (total = 5) x\r\n   1 100.00%% 100.00%% 4 1 A.b\r\n' >> "$V"
if hf_mount "$V"; then
  check "variant: TRACE with (thread=) read" test -e "$MNT/traces/1" -a -e "$MNT/traces/2"
  check "variant: thread directory" test -d "$MNT/threads/7-main"
  check "variant: missing trace listed" grep -q 'names TRACE 9, which the file does not have' "$MNT/errors"
  check "variant: malformed row listed" grep -q 'malformed SITES row' "$MNT/errors"
  check "variant: missing END listed" grep -q 'SITES block has no END line' "$MNT/errors"
  check "variant: CPU rows below the total (the agent's cutoff) not listed" \
    bash -c "! grep -q 'CPU SAMPLES counts' '$MNT/errors'"
  check "variant: cpu/samples shown" grep -q 'A.b' "$MNT/snapshots/1/cpu/samples"
  hf_umount
else
  echo "not ok - variant file mounts"
fi

# --- a heap dump with a shadowed field (ucp in a class and its super class,
# the super class's line first), and CPU rows above their total ---
H=$TESTTMP/h.hprof.txt
{
  printf 'JAVA PROFILE 1.0.1, created Mon Jan  1 00:00:00 2001\n\nTRACE 1:\n\tA.b(A.java:3)\n'
  printf 'HEAP DUMP BEGIN (4 objects, 88 bytes) x\n'
  printf 'CLS 10 (name=java.net.URLClassLoader, trace=1)\n'
  printf 'CLS 12 (name=sun.misc.Launcher$AppClassLoader, trace=1)\n\tsuper\t\t10\n'
  printf 'CLS 13 (name=java.lang.Object, trace=1)\n'
  printf 'OBJ 20 (sz=72, trace=1, class=sun.misc.Launcher$AppClassLoader@12)\n'
  printf '\tparent\t\t21\n\tucp\t\t22\n\tacc\t\t21\n\tucp\t\t23\n'
  printf 'OBJ 21 (sz=16, trace=1, class=java.lang.Object@13)\n'
  printf 'OBJ 22 (sz=16, trace=1, class=java.lang.Object@13)\n'
  printf 'OBJ 23 (sz=16, trace=1, class=java.lang.Object@13)\n'
  printf 'ARR 24 (sz=48, trace=1, nelems=0, elem type=char[])\n'
  printf 'HEAP DUMP END\n'
  printf 'CPU SAMPLES BEGIN (total = 3) x\n   1 100.00%% 100.00%% 4 1 A.b\nCPU SAMPLES END\n'
} >"$H"
if hf_mount "$H"; then
  O=$MNT/snapshots/1/objects/0x20
  check_eq "shadowed: fields lists both ucp, the super class's as ucp@java.net.URLClassLoader" \
    "parent object 0x21
ucp object 0x23
acc object 0x21
ucp@java.net.URLClassLoader object 0x22" "$(tail -n +2 "$O/fields" | tr '\t' ' ')"
  check_eq "shadowed: refs/ has both" "../../0x23 ../../0x22" \
    "$(readlink "$O/refs/ucp") $(readlink "$O/refs/ucp@java.net.URLClassLoader")"
  check_eq "shadowed: histogram bytes = the sum of sz= (72 + 3 x 16 + 48: arrays' too, class objects 0)" "168" \
    "$(awk '!/^#/ { s += $2 } END { print s + 0 }' "$MNT/snapshots/1/histogram")"
  check "CPU rows above the total listed" grep -q 'CPU SAMPLES counts sum to 4, above the total 3' "$MNT/errors"
  hf_umount
else
  echo "not ok - heap dump variant mounts"
fi
