#!/usr/bin/env bash
# t_classloaders.sh - classloaders and duplicate-classes (docs/inspect.md)
# on a dump of tests/programs/java/Collections.java: Collections$Plugin is
# defined by two URLClassLoaders, one held by the static keptLoader, the
# other only through a Plugin instance in the static plugins; the loaders'
# counts add up to the JVM's histogram.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/jvm.sh"
source "$(dirname "$0")/collections.sh"

collections_dump
ls "$S" >/dev/null
check "listing computes no retained sizes" bash -c "! grep -q 'retained sizes' '$MNT/.stats'"
KEPT=$(static_id keptLoader)
PLUGIN=$(awk '!/^#/ { print $2 }' "$S/objects/$(static_id plugins)/fields")
OTHER=$(awk '$1 == "loader:" { print $2 }' "$S/classes/$(basename "$(readlink "$S/objects/$PLUGIN/class")")/info")
check "the Plugin's class has a loader that is not keptLoader" bash -c "[ -n '$OTHER' ] && [ '$OTHER' != '$KEPT' ]"

L=$S/classloaders
check_eq "classloaders header" "# id	classes	objects	bytes	retained	class" "$(head -1 "$L")"
retained() { sed -n 's/^retained: \([0-9]*\).*/\1/p' "$S/objects/$1/retained"; }
check_eq "keptLoader: one class, no instances, its retained bytes" \
  "1 0 0 $(retained "$KEPT") java.net.URLClassLoader" \
  "$(awk -F '\t' -v id="$KEPT" '$1 == id { print $2, $3, $4, $5, $6 }' "$L")"
check_eq "the other loader: one class, one instance" \
  "1 1 $(retained "$OTHER") java.net.URLClassLoader" \
  "$(awk -F '\t' -v id="$OTHER" '$1 == id { print $2, $3, $5, $6 }' "$L")"
check "the bootstrap loader is 0x0" bash -c "awk -F '\t' '\$1 == \"0x0\" && \$6 == \"<bootstrap>\" && \$2 > 100' '$L' | grep -q ."
nclasses=$(ls "$S/classes" | wc -l)
check_eq "every class is one loader's" "$nclasses" "$(awk -F '\t' 'NR > 1 { s += $2 } END { print s }' "$L")"
hsum=$(awk -F '\t' '{ n += $2; b += $3 } END { print n, b }' "$TESTTMP/coll.h1")
cls=$(awk '$NF == "java.lang.Class" { print $1, $2 }' "$S/histogram")
check_eq "the loaders' objects and bytes, less java.lang.Class, are jcmd's totals" "$hsum" \
  "$(awk -F '\t' -v c="$cls" 'BEGIN { split(c, k, " ") } NR > 1 { n += $3; b += $4 } END { print n - k[1], b - k[2] }' "$L")"

D=$S/duplicate-classes
check_eq "duplicate-classes header" "# copies	id	objects	loader	loader_retained	class	path" "$(head -1 "$D")"
check_eq "Collections\$Plugin twice, once per loader, sorted by loader" \
  "$(printf '%s\n' "$KEPT" "$OTHER" | sort)" \
  "$(awk -F '\t' '$6 ~ /^Collections\$Plugin(@|$)/ && $1 == 2 { print $4 }' "$D")"
row() { awk -F '\t' -v l="$1" '$6 ~ /^Collections\$Plugin/ && $4 == l' "$D"; }
check_eq "the kept copy: no instances, its loader's retained bytes" "0 $(retained "$KEPT")" \
  "$(row "$KEPT" | awk -F '\t' '{ print $3, $5 }')"
check_eq "the other copy: one instance" "1 $(retained "$OTHER")" "$(row "$OTHER" | awk -F '\t' '{ print $3, $5 }')"
check "keptLoader's path: from a root through the static keptLoader to the loader" bash -c \
  "row() { awk -F '\t' -v l=\"\$1\" '\$6 ~ /^Collections.Plugin/ && \$4 == l { print \$7 }' '$D'; };
   row '$KEPT' | grep -qE '^[a-z-]+.* class Collections \.keptLoader $KEPT java\.net\.URLClassLoader\$'"
check "the other loader's path: plugins, the Plugin, its class, the loader" bash -c \
  "awk -F '\t' -v l='$OTHER' '\$6 ~ /^Collections.Plugin/ && \$4 == l { print \$7 }' '$D' |
   grep -qE '\.plugins 0x[0-9a-f]+ java\.lang\.Object\[1\] \.0 $PLUGIN Collections.Plugin .* \.<loader> $OTHER java\.net\.URLClassLoader\$'"
check "every duplicate class has 2 copies or more, each row 7 columns" bash -c \
  "awk -F '\t' 'NR > 1 && (\$1 < 2 || NF != 7) { exit 1 }' '$D'"
