#!/usr/bin/env bash
# t_layout.sh - the layering contracts of docs/architecture.md, checked on the
# sources and on the objects `make` built (no mount):
#   - nothing under decoders/ or cache/ includes a FUSE header (fuse*.h) or
#     anything under fs/;
#   - under fs/ only the FUSE front end includes a FUSE header: fs/main.c,
#     fs/fuse_ops.c and their shared fs/fuse_ops.h (itself a fuse*.h, so no
#     other file of fs/ may include it either);
#   - the direction between the layers (architecture.md, "Who may include
#     whom"): decoders/core/ includes only core, and no header of libdw,
#     protobuf-c or FUSE; decoders/pprof/ only core and pprof;
#     decoders/heap/ only core, pprof and heap; only the heap formats
#     (HEAP_FORMATS below) include decoders/heap/; cache/ includes nothing
#     of decoders/ or fs/; no file of decoders/ includes anything of cache/;
#     fs/ sees decoders/ only through decoders/core/ (model.h, names.h,
#     compare.h, search.h, cancel.h, mapwatch.h; check.c keepfile.h, to say
#     where a mount keeps the index files) and of cache/ only cache/cache.h;
#     registry.h only in registry.c;
#   - no folder of decoders/ includes a header of a format folder (every folder
#     but core, heap and pprof) other than its own.  The one exception: BMD
#     files embed legacy HPROF records, which decoders/bmd/ decodes with the
#     HPROF parsers, so decoders/bmd/ may include decoders/hprof/records.h
#     (and nothing else of decoders/hprof/);
#   - within each folder of decoders/ and of fs/, no two .c files call each
#     other in a circle: from `nm` on $B/<folder>/*.o (B=build/rel unless set),
#     file A calls file B when A has an undefined (U) symbol that B defines
#     (T); any strongly connected set of two or more files fails, with the
#     files and the symbols of each call between them;
#   - no .c or .h under decoders/, cache/, fs/ is longer than 800 lines;
#   - no file of the repository refers to the shared folder beside the
#     checkout (dot-dot-slash "shared"): the clone must run on its own.
#     Except .ci/ (the CI machine's own setup) and tests/corpus/PROVENANCE.md,
#     which names the project's shared corpus as where its copies came from;
#   - every decoder registered in decoders/core/registry.c has a line in
#     tests/fuzz/fuzz.mk (by its format name; t_fuzz_smoke.sh checks the same
#     at run time), a unit test tests/unit/test_<folder>.c and its mount tests
#     (MOUNT_TESTS below: t_<folder>.sh unless the table says otherwise).
# When a contract is broken the "not ok" line is followed by "#" lines that
# name every offender.
source "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
export LC_ALL=C
B=${B:-build/rel}

# The mount tests of each decoder folder, where they are not t_<folder>.sh:
# HPROF binary is tested by the filesystem tests on the corpus HPROF files
# and by the jcmd test on a dump of a live JVM.
declare -A MOUNT_TESTS=(
  [hprof]="t_fs.sh t_jcmd.sh"
  [bmd]="t_bmd.sh"
  [hproftxt]="t_hproftxt.sh"
  [gperf]="t_gperf.sh"
  [oemp]="t_oemp.sh"
)
# decoders/ folders that are layers shared by the formats, not formats
SHARED_LAYERS=" core heap pprof "
# the format folders that build on the heap layer, decoders/heap/
HEAP_FORMATS=" hprof bmd hproftxt v8 "

# report WHAT OFFENDERS: "ok - WHAT" when OFFENDERS (lines) is empty, else
# "not ok - WHAT" and each offender on a "#" line.
report() {
  if [ -z "$2" ]; then
    echo "ok - $1"
  else
    echo "not ok - $1"
    printf '%s\n' "$2" | sed 's/^/#   /'
  fi
}

mapfile -t SRC < <(find decoders cache fs -name '*.[ch]' | sort)
[ "${#SRC[@]}" -gt 0 ] || { echo "not ok - sources found under decoders/, cache/, fs/"; exit 0; }

# ---- includes -----------------------------------------------------------------------
# One line per #include of the tree: FILE TARGET.  TARGET is a repository path
# when it names a file of the repository ("x.h" is looked for beside FILE
# first, then from the root, as -I. does), else the name as written.
INC=$TESTTMP/includes
for f in "${SRC[@]}"; do
  d=$(dirname "$f")
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"]\)\([^>"]*\)[>"].*/\1 \2/p' "$f" |
  while read -r kind name; do
    if [ "$kind" = '"' ] && [ -e "$d/$name" ]; then t=$(realpath -m --relative-to=. "$d/$name")
    elif [ -e "$name" ]; then t=$(realpath -m --relative-to=. "$name")
    else t=$name; fi
    echo "$f $t"
  done
done >"$INC"
[ -s "$INC" ] || echo "not ok - #include lines found in the sources"

# inc AWK-CONDITION: the include lines ($1 file, $2 target) that match it
inc() { awk "$1" "$INC"; }
FUSE='$2 ~ /(^|\/)fuse[^\/]*\.h$/'

report "nothing under decoders/ or cache/ includes a FUSE header (fuse*.h)" \
  "$(inc "\$1 ~ /^(decoders|cache)\\// && $FUSE")"
report "nothing under decoders/ or cache/ includes anything under fs/" \
  "$(inc '$1 ~ /^(decoders|cache)\// && $2 ~ /^fs\//')"
report "under fs/ only main.c and fuse_ops.c (and their fuse_ops.h) include a FUSE header" \
  "$(inc "\$1 ~ /^fs\\// && \$1 !~ /^fs\\/(main\\.c|fuse_ops\\.c|fuse_ops\\.h)\$/ && $FUSE")"

report "decoders/core/ includes nothing else of the project" \
  "$(inc '$1 ~ /^decoders\/core\// && $2 ~ /^(decoders|cache|fs)\// && $2 !~ /^decoders\/core\//')"
report "decoders/core/ includes no header of libdw, protobuf-c or FUSE (glib, zlib, the C library)" \
  "$(inc '$1 ~ /^decoders\/core\// && $2 ~ /^(elfutils|protobuf-c|build)\/|(^|\/)(gelf|libelf|dwarf|libdw[^\/]*|fuse[^\/]*|[^\/]*pb-c)\.h$/')"
report "decoders/pprof/ includes only decoders/core/ and decoders/pprof/" \
  "$(inc '$1 ~ /^decoders\/pprof\// && $2 ~ /^(decoders|cache|fs)\// && $2 !~ /^decoders\/(core|pprof)\//')"
report "decoders/heap/ includes only decoders/core/, pprof/ and heap/" \
  "$(inc '$1 ~ /^decoders\/heap\// && $2 ~ /^(decoders|cache|fs)\// && $2 !~ /^decoders\/(core|pprof|heap)\//')"
report "cache/ includes nothing of decoders/ or fs/" \
  "$(inc '$1 ~ /^cache\// && $2 ~ /^(decoders|fs)\//')"
report "no file of decoders/ includes anything of cache/" \
  "$(inc '$1 ~ /^decoders\// && $2 ~ /^cache\//')"
report "fs/ includes of cache/ only the view cache, cache/cache.h" \
  "$(inc '$1 ~ /^fs\// && $2 ~ /^cache\// && $2 != "cache/cache.h"')"
report "fs/ sees decoders/ only through decoders/core/ (model.h, names.h, compare.h, search.h, cancel.h, mapwatch.h; keepfile.h in check.c; keepdir.h in check.c, forget.c, main.c)" \
  "$(inc '$1 ~ /^fs\// && $2 ~ /^decoders\// && $2 !~ /^decoders\/core\/(model|names|compare|search|cancel|mapwatch)\.h$/ && !($1 == "fs/check.c" && $2 == "decoders/core/keepfile.h") && !($2 == "decoders/core/keepdir.h" && $1 ~ /^fs\/(check|forget|main)\.c$/)')"
report "decoders/core/registry.h is included by no file of the library but registry.c" \
  "$(inc '$2 == "decoders/core/registry.h" && $1 != "decoders/core/registry.c"')"

# format folders: every folder of decoders/ but the shared layers
formats=""
for d in decoders/*/; do
  d=$(basename "$d")
  [[ "$SHARED_LAYERS" == *" $d "* ]] || formats="$formats $d"
done
cross=$(awk -v formats="$formats" '
  BEGIN { n = split(formats, f, " "); for (i = 1; i <= n; i++) isfmt[f[i]] = 1 }
  $1 ~ /^decoders\// && $2 ~ /^decoders\// {
    split($1, a, "/"); split($2, b, "/")
    if (!(b[2] in isfmt) || a[2] == b[2]) next
    # BMD embeds legacy HPROF records, decoded with the HPROF parsers
    if (a[2] == "bmd" && $2 == "decoders/hprof/records.h") next
    print
  }' "$INC")
report "no folder of decoders/ includes another format folder's header (but bmd/: hprof/records.h)" "$cross"
report "only the heap formats ($(echo $HEAP_FORMATS)) include decoders/heap/" \
  "$(awk -v heapfmt="$HEAP_FORMATS" '$1 ~ /^decoders\// && $2 ~ /^decoders\/heap\// {
      split($1, a, "/")
      if (a[2] != "heap" && index(heapfmt, " " a[2] " ") == 0) print
    }' "$INC")"

# ---- calls in a circle, by symbols ----------------------------------------------------
cycles() {  # FOLDER: the strongly connected sets of 2+ files, from nm of the objects
  local dir=$1 objs=() missing="" c o
  for c in "$dir"/*.c; do
    o=$B/${c%.c}.o
    if [ ! -e "$o" ]; then missing="$missing $o"
    elif [ "$c" -nt "$o" ]; then missing="$missing $o (older than $c)"
    else objs+=("$o"); fi
  done
  if [ -n "$missing" ]; then echo "objects missing or stale, run make first:$missing"; return; fi
  [ "${#objs[@]}" -gt 1 ] || return 0
  nm -A "${objs[@]}" | python3 -c '
import sys, os, collections
B = sys.argv[1]
defs, undef = {}, collections.defaultdict(set)
for line in sys.stdin:
    obj, rest = line.split(":", 1)
    name = os.path.relpath(obj, B)[:-2] + ".c"
    p = rest.split()
    if len(p) == 3 and p[1] in ("T", "W"):
        defs[p[2]] = name
    elif len(p) == 2 and p[0] == "U":
        undef[name].add(p[1])
calls = collections.defaultdict(dict)          # caller -> callee -> symbols
for f, syms in undef.items():
    for s in sorted(syms):
        if s in defs and defs[s] != f:
            calls[f].setdefault(defs[s], []).append(s)
files = sorted(set(defs.values()) | set(undef))
# Tarjan, iterative
index, low, onstack, stack, sccs, n = {}, {}, set(), [], [], 0
for root in files:
    if root in index:
        continue
    work = [(root, iter(sorted(calls[root])))]
    index[root] = low[root] = n; n += 1; stack.append(root); onstack.add(root)
    while work:
        v, it = work[-1]
        w = next(it, None)
        if w is not None:
            if w not in index:
                index[w] = low[w] = n; n += 1; stack.append(w); onstack.add(w)
                work.append((w, iter(sorted(calls[w]))))
            elif w in onstack:
                low[v] = min(low[v], index[w])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[v])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop(); onstack.discard(w); scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                sccs.append(sorted(scc))
def shortest(v, scc):  # the shortest circle from v back to v inside scc
    prev, todo = {v: None}, [v]
    for a in todo:
        for b in sorted(calls[a]):
            if b == v:
                path = [a]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [v] + path[::-1][1:] + [v]
            if b in scc and b not in prev:
                prev[b] = a; todo.append(b)
for scc in sorted(sccs):
    print("files calling each other in a circle: " + " ".join(os.path.basename(f) for f in scc))
    seen = set()
    for v in scc:
        c = shortest(v, set(scc))
        k = frozenset(zip(c, c[1:]))
        if k not in seen:
            seen.add(k)
            print("  circle: " + " -> ".join(os.path.basename(f) for f in c))
    print("  the calls between them:")
    for a in scc:
        for b in scc:
            if b in calls[a]:
                print("  %s -> %s: %s" % (os.path.basename(a), os.path.basename(b), " ".join(calls[a][b])))
' "$B"
}
command -v nm >/dev/null || echo "not ok - nm (binutils) is installed"
for dir in decoders/*/ fs/; do
  dir=${dir%/}
  report "$dir/: no two .c files call each other in a circle (nm of $B/$dir/*.o)" "$(cycles "$dir")"
done

# ---- length --------------------------------------------------------------------------
long=$(wc -l "${SRC[@]}" | awk '$2 != "total" && $1 > 800 { print $2 ": " $1 " lines" }')
report "no .c or .h under decoders/, cache/, fs/ is longer than 800 lines" "$long"

# ---- the shared folder beside the checkout --------------------------------------------
SHARED='..''/shared'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  refs=$(git grep --untracked -n -I -F -e "$SHARED" -- . ':(exclude).ci' ':(exclude)tests/corpus/PROVENANCE.md')
else
  refs=$(grep -rnIF --exclude-dir=.git --exclude-dir=.ci --exclude-dir=build --exclude-dir=out \
         --exclude=PROVENANCE.md -e "$SHARED" .)
fi
report "nothing in the repository refers to $SHARED (but .ci/, tests/corpus/PROVENANCE.md)" "$refs"

# ---- every registered decoder: fuzz line, unit test, mount tests -----------------------
mapfile -t REG < <(sed -n '/decoders\[\] *= *{/,/};/p' decoders/core/registry.c | grep -o '&[A-Za-z_][A-Za-z0-9_]*' | tr -d '&')
[ "${#REG[@]}" -gt 0 ] && echo "ok - decoders/core/registry.c lists ${#REG[@]} decoders" ||
  echo "not ok - decoders/core/registry.c lists decoders (no &symbol in its decoders[] table)"
folders=" "
for sym in "${REG[@]}"; do
  src=$(grep -lE "^[[:space:]]*const[[:space:]]+hf_decoder[[:space:]]+$sym[[:space:]]*=" decoders/*/*.c | head -1)
  if [ -z "$src" ]; then echo "not ok - registered decoder $sym is defined in decoders/*/*.c"; continue; fi
  folder=$(basename "$(dirname "$src")")
  folders="$folders$folder "
  fmt=$(awk -v s="$sym" '
    $0 ~ "hf_decoder[ \t]+" s "[ \t]*=" { on = 1 }
    on && match($0, /\.format[ \t]*=[ \t]*"[^"]*"/) { v = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", v); sub(/"$/, "", v); print v; exit }
    on && /^};/ { exit }' "$src")
  if [ -z "$fmt" ]; then echo "not ok - registered decoder $sym ($src) has a .format"; continue; fi
  check "decoder $fmt (decoders/$folder/) has a line in tests/fuzz/fuzz.mk" grep -qF "call decoder,$fmt," tests/fuzz/fuzz.mk
  check "decoder $fmt (decoders/$folder/) has a unit test tests/unit/test_$folder.c" test -s "tests/unit/test_$folder.c"
  for t in ${MOUNT_TESTS[$folder]:-t_$folder.sh}; do
    check "decoder $fmt (decoders/$folder/) has a mount test tests/mount/$t" test -s "tests/mount/$t"
  done
done
stale=""
for k in "${!MOUNT_TESTS[@]}"; do [[ "$folders" == *" $k "* ]] || stale="$stale$k: no registered decoder lives in decoders/$k/"$'\n'; done
report "every row of this script's MOUNT_TESTS table is a registered decoder's folder" "${stale%$'\n'}"
