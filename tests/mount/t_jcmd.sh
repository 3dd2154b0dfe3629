#!/usr/bin/env bash
# t_jcmd.sh - heapfs against a live JVM, with the JVM itself as the oracle.
#
# Runs tests/programs/java/HeapShape.java (a heap of known shape: 1234 Alpha, 777
# Beta$Inner, a CycleA <-> CycleB cycle, arrays of known lengths, a secret
# String, LATIN1 and UTF16 Strings, two lambdas), then asks the JVM for
#   jcmd PID GC.class_histogram          (the oracle: HotSpot's own counts)
#   jcmd PID GC.heap_dump -all=false F   (the dump heapfs mounts)
# and compares the mounted tree with the histogram and with what the program
# is known to hold.  The histogram is taken just before and just after the
# dump and the pair is retaken until both agree, so that the dump is known
# to hold exactly that heap (the first attach and the Cleaner thread change
# a few JDK objects; HeapShape itself allocates nothing after READY).
#
# The same program runs once per object layout HotSpot offers: the default
# (compressed oops and class pointers), -XX:-UseCompressedOops (8-byte
# references), -XX:-UseCompressedClassPointers (16-byte headers, 4-byte
# references) and -XX:ObjectAlignmentInBytes=16.  The dump does not say
# which; heapfs infers it from the object addresses (info's "size rule"),
# and for every layout each class's instance count and bytes must equal the
# JVM's histogram.  The tree itself is checked in depth on the default one.
#
# jcmd prints class names in descriptor form with a module suffix
# ("[B (java.base@17)", "[Ljava.lang.Object;", "[[I") and hidden classes as
# "Foo$$Lambda$1/0x..."; heapfs prints display names (byte[],
# java.lang.Object[], int[][]) escaped as file names (%2F, %25, "@0xID" for
# a name that repeats).  Both sides are converted to one form, duplicates are
# summed by name, and java.lang.Class is left out: HPROF writes class
# objects as CLASS DUMP records, not as instances of java.lang.Class, and
# their size is approximate.  Skips only when java, javac or jcmd is absent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jvm.sh"

for tool in java javac jcmd; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "# skip: $tool not found"
    echo "ok - jcmd oracle # SKIP $tool absent"
    exit 0
  fi
done

# against_jcmd L REFS FORMULA: mounts L's dump (MNT, S = its latest
# snapshot) and compares its histogram with the JVM's; info's size rule must
# state the layout: "references REFS bytes" and FORMULA.  Leaves the dump
# mounted.
against_jcmd() {
  local l=$1 refs=$2 formula=$3
  if ! hf_mount "$TESTTMP/$l.hprof"; then
    sed 's/^/# /' "$MNT.log" | head -20
    echo "not ok - $l: mount the JVM's dump"
    return 1
  fi
  S=$MNT/latest
  local said
  said=$(sed -n 's/^size rule: //p' "$MNT/info")
  echo "# $l: size rule: $said"
  check "$l: info's size rule says references $refs bytes" grep -qF "references $refs bytes" <<<"$said"
  check "$l: info's size rule is $formula" grep -qF "$formula" <<<"$said"
  check_eq "$l: errors is empty for a JVM's own dump" "0" "$(stat -c %s "$MNT/errors" 2>&1)"
  hist_equal "$l" "$S/histogram"
  # java.lang.Class: jcmd counts every class mirror; heapfs counts CLASS DUMP
  # records plus the primitive types' mirrors (dumped as instances).  Bytes
  # differ by design (heapfs's class object size is approximate).
  check_eq "$l: java.lang.Class count equals jcmd's (class objects + primitive mirrors)" \
    "$(jcmd_hist <"$TESTTMP/$l.h1.raw" | awk -F '\t' '$1 == "java.lang.Class" { print $2 }')" \
    "$(heapfs_hist <"$S/histogram" | awk -F '\t' '$1 == "java.lang.Class" { print $2 }')"
  check_eq "$l: info says what java.lang.Class counts: jcmd's count = the class objects + the rest" \
    "$(jcmd_hist <"$TESTTMP/$l.h1.raw" | awk -F '\t' '$1 == "java.lang.Class" { print $2 }') = $(sed -n 's/^class objects: //p' "$S/info") class objects" \
    "$(sed -n 's/^java.lang.Class objects: \([0-9]* = [0-9]* class objects\) .*/\1/p' "$S/info")"
}

# One JVM per layout, each compared and unmounted; the default one last, and
# left mounted for the checks below.
# label|flag|references|formula
for layout in "no-compressed-oops|-XX:-UseCompressedOops|8|instance = align8(12 + fields), array = align8(16 +" \
  "no-compressed-class-pointers|-XX:-UseCompressedClassPointers|4|instance = align8(16 + fields), array = align8(24 +" \
  "align16|-XX:ObjectAlignmentInBytes=16|4|instance = align16(12 + fields), array = align16(16 +"; do
  IFS='|' read -r l flag refs formula <<<"$layout"
  heapshape_dump "$l" "$flag" && against_jcmd "$l" "$refs" "$formula" && hf_umount
done
heapshape_dump default || exit 1
against_jcmd default 4 "instance = align8(12 + fields), array = align8(16 +" || exit 1

check "latest is a symlink to snapshots/N" bash -c "readlink '$MNT/latest' | grep -Eq '^snapshots/[0-9]+$'"
check_eq "histogram header" "# objects${TAB}bytes${TAB}class" "$(head -1 "$S/histogram")"
for want in "Alpha 1234" "Beta\$Inner 777" "CycleA 1" "CycleB 1" "Alpha[] 1"; do
  read -r cname cwant <<<"$want"
  check_eq "histogram: $cname has $cwant instances" "$cwant" "$(awk -F '\t' -v n="$cname" '$1 == n { print $2 }' "$TESTTMP/default.hf")"
done

# ---- strings ------------------------------------------------------------
check "strings: grep -r finds secret-token-c0ffee1234" \
  env LC_ALL=C grep -rqF 'secret-token-c0ffee1234' "$S/strings"
check "strings: LATIN1 string decoded to UTF-8 (café-latin1-marker)" \
  env LC_ALL=C grep -rqF 'café-latin1-marker' "$S/strings"
check "strings: UTF16 string decoded to UTF-8 (Привет-мир-日本語-utf16-marker)" \
  env LC_ALL=C grep -rqF 'Привет-мир-日本語-utf16-marker' "$S/strings"
sid=$(LC_ALL=C grep -F 'secret-token-c0ffee1234' "$S/strings" | grep -o '0x[0-9a-fA-F]*' | head -1)
check "strings: the secret's object has value 'secret-token-c0ffee1234'" \
  env LC_ALL=C grep -qxF 'secret-token-c0ffee1234' "$S/objects/$sid/value"

# ---- classes, instances, objects -----------------------------------------
check_eq "classes/Alpha/instances has 1234 lines" "1234" "$(wc -l <"$S/classes/Alpha/instances" 2>&1)"
check_eq "classes/Beta\$Inner/instances has 777 lines" "777" "$(wc -l <"$S/classes/Beta\$Inner/instances" 2>&1)"
a1=$(head -1 "$S/classes/Alpha/instances" | awk '{print $1}')
check "first Alpha instance ($a1) has an object directory" test -d "$S/objects/$a1"
check_eq "Alpha instance's class symlink" "../../classes/Alpha" "$(readlink "$S/objects/$a1/class" 2>&1)"
check "Alpha's fields view lists id and weight" \
  bash -c "grep -qw id '$S/classes/Alpha/fields' && grep -qw weight '$S/classes/Alpha/fields'"

# The cycle: CycleA.b -> CycleB, CycleB.a -> the same CycleA.
A=$(head -1 "$S/classes/CycleA/instances" 2>/dev/null | awk '{print $1}')
B=$(basename "$(readlink "$S/objects/$A/refs/b" 2>/dev/null)" 2>/dev/null)
echo "# CycleA $A, refs/b -> $(readlink "$S/objects/$A/refs/b" 2>&1)"
check "CycleA's fields show b -> $B" grep -qw -- "$B" "$S/objects/$A/fields"
check_eq "CycleA refs/b points at the CycleB instance" \
  "$(head -1 "$S/classes/CycleB/instances" 2>/dev/null | awk '{print $1}')" "$B"
check_eq "CycleB refs/a points back at CycleA" "../../$A" "$(readlink "$S/objects/$B/refs/a" 2>&1)"
check "cycle followed through symlinks: A/refs/b/refs/a/refs/b is B" \
  bash -c "[ \"\$(cat '$S/objects/$A/refs/b/refs/a/refs/b/info')\" = \"\$(cat '$S/objects/$B/info')\" ]"
check "ls -L A/refs/b/refs/a lists A's refs" ls -L "$S/objects/$A/refs/b/refs/a/refs/b"
check_eq "CycleA.name -> String 'cycle-a'" "cycle-a" "$(cat "$S/objects/$A/refs/name/value" 2>&1)"

# ---- arrays, found through HeapShape's statics ---------------------------
static_id() { # last 0x... on the statics line of field $1
  awk -v f="$1" '{ for (i = 1; i <= NF; i++) if ($i == f) { print; exit } }' "$S/classes/HeapShape/statics" |
    grep -o '0x[0-9a-fA-F]*' | tail -1
}
G=$(static_id grid); I=$(static_id ints); L=$(static_id longs); Y=$(static_id bytes); O=$(static_id objects)
echo "# statics: grid $G ints $I longs $L bytes $Y objects $O"
check_eq "grid is an int[][]" "../../classes/int[][]" "$(readlink "$S/objects/$G/class" 2>&1)"
check_eq "grid has 7 refs (rows)" "7" "$(ls "$S/objects/$G/refs" 2>/dev/null | wc -l)"
row=$(ls "$S/objects/$G/refs" 2>/dev/null | head -1)
check_eq "a grid row is an int[] of 9 elements" "9" "$(wc -l <"$S/objects/$G/refs/$row/value" 2>&1)"
check_eq "int[4099] value has 4099 lines" "4099" "$(wc -l <"$S/objects/$I/value" 2>&1)"
check_eq "int[4099] element 4098 is 28686" "28686" "$(sed -n 4099p "$S/objects/$I/value" 2>&1)"
check_eq "long[333] value has 333 lines" "333" "$(wc -l <"$S/objects/$L/value" 2>&1)"
check_eq "long[333] element 62 is 2^62" "4611686018427387904" "$(sed -n 63p "$S/objects/$L/value" 2>&1)"
check "byte[5555] value reads as text abcd..." \
  bash -c "head -c 30 '$S/objects/$Y/value' | grep -q '^abcdefghijklmnopqrstuvwxyzabcd'"
check_eq "Object[42] has 4 non-null refs" "4" "$(ls "$S/objects/$O/refs" 2>/dev/null | wc -l)"
check_eq "java.lang.Object[] class directory exists" "yes" \
  "$([ -d "$S/classes/java.lang.Object[]" ] && echo yes || echo no)"

# ---- lambdas (hidden classes) ---------------------------------------------
lambdas=()
for c in "$S/classes/HeapShape\$\$Lambda"*; do [ -e "$c" ] && lambdas+=("${c##*/}"); done
lam=${#lambdas[@]}
check_eq "two HeapShape lambda classes listed" "2" "$lam"
printf '# lambda class directory: %s\n' "${lambdas[@]}"
# jcmd names them HeapShape$$Lambda$N/0x...; the dump, HeapShape$$Lambda$N+0x...
# Whichever heapfs shows, its directory must be the escaped name.
awk '/ HeapShape[$][$]Lambda/ { print $4 }' "$TESTTMP/default.h1.raw" | while read -r j; do
  esc=$(printf '%s' "$j" | sed 's/%/%25/g; s|/|%2F|g')
  plus=$(printf '%s' "$esc" | sed 's/%2F0x/+0x/')
  check "hidden class $j has directory $esc (or $plus)" bash -c '[ -d "$1/$2" ] || [ -d "$1/$3" ]' _ "$S/classes" "$esc" "$plus"
done
for c in "${lambdas[@]}"; do
  check_eq "lambda class $c has 1 instance" "1" "$(wc -l <"$S/classes/$c/instances" 2>&1)"
done

# ---- exact sizes: stat before reading equals bytes read ------------------
for v in "$MNT/info" "$MNT/errors" "$S/info" "$S/histogram" "$S/strings" "$S/roots" \
  "$S/classes/Alpha/info" "$S/classes/Alpha/instances" "$S/classes/HeapShape/statics" \
  "$S/objects/$A/fields" "$S/objects/$A/info" "$S/objects/$I/value" "$S/objects/$Y/value" \
  "$S/objects/$sid/value"; do
  check_eq "stat size = bytes read: ${v#$MNT/}" "$(cat "$v" 2>/dev/null | wc -c)" "$(stat -c %s "$v" 2>&1)"
done
