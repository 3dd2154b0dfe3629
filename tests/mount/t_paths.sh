#!/usr/bin/env bash
# t_paths.sh - paths given as a user types them: `heapfs r.hprof m` from the
# dump's directory, daemonised (no -f: the daemon changes to /) and in the
# foreground.  The index file and the retained-sizes results go beside the
# dump, .stats never says "the dump changed" when it did not, and a relative
# -o index=FILE or -o names=FILE means the file in the directory the command
# was run from.  Then the line saying where those files go (or that none
# will be written), in --check and, on a terminal, at mount time.
source "$(dirname "$0")/lib.sh"

D=$TESTTMP/work
mkdir -p "$D/m" "$D/mf" "$D/mi"
cp "$CORPUS/hprof/slurp_hprof-64.bin" "$D/r.hprof"

# until FILE has a line matching the grep regex RE (10 s)
wait_line() {
  local i
  for i in $(seq 1 100); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
# daemon MNT ARGS...: heapfs ARGS... run from $D without -f; MNT is unmounted
# at exit
daemon() {
  local m=$1; shift
  HF_MOUNTS+=("$D/$m")
  (cd "$D" && "$HEAPFS" "$@" "$m") 2>"$TESTTMP/$m.err"
}

# ---- daemonised, relative dump and mount point ----
if daemon m r.hprof; then
  echo "ok - heapfs r.hprof m (daemonised, relative paths) mounts"
  check "daemonised: the index file is written beside the dump" \
    wait_line "$D/m/.stats" "^index: .*written to $D/r.hprof.heapfs-index "
  check "daemonised: .stats does not say the dump changed" bash -c "! grep -q 'dump changed' '$D/m/.stats'"
  cat "$D/m/latest/dominators" >/dev/null
  check "daemonised: the retained sizes are kept beside the dump" \
    wait_line "$D/m/.stats" "^retained sizes, snapshot 1: kept in $D/r.hprof.heapfs-index.retained-strong.1 "
  check "daemonised: the mount table names the dump by its absolute path" \
    test "$(findmnt -n -o SOURCE "$D/m")" = "$D/r.hprof"
  fusermount3 -u "$D/m"
else
  echo "not ok - heapfs r.hprof m (daemonised, relative paths) mounts: $(cat "$TESTTMP/m.err")"
fi
rm -f "$D"/r.hprof.heapfs-index*

# ---- foreground, relative paths: the same ----
(cd "$D" && exec "$HEAPFS" -f r.hprof mf) 2>"$TESTTMP/mf.err" &
HF_PIDS+=($!); HF_MOUNTS+=("$D/mf")
for _ in $(seq 1 100); do mountpoint -q "$D/mf" && break; sleep 0.1; done
if mountpoint -q "$D/mf"; then
  check "-f: the index file is written beside the dump" \
    wait_line "$D/mf/.stats" "^index: .*written to $D/r.hprof.heapfs-index "
  fusermount3 -u "$D/mf"
else
  echo "not ok - heapfs -f r.hprof mf mounts: $(cat "$TESTTMP/mf.err")"
fi
rm -f "$D"/r.hprof.heapfs-index*

# ---- -o index=FILE, relative, daemonised: the file in the command's directory ----
name=rel-$$.ix
if daemon mi -o index="$name" "$D/r.hprof"; then
  check "-o index=$name (relative, daemonised) is written in the command's directory" \
    wait_line "$D/mi/.stats" "^index: .*written to $D/$name "
  check "-o index=$name: nothing written in /" test ! -e "/$name"
  fusermount3 -u "$D/mi"
  if daemon mi -o index="$name" r.hprof; then
    check "-o index=$name: a remount (daemonised) loads it" wait_line "$D/mi/.stats" "^index: loaded from $D/$name "
    fusermount3 -u "$D/mi"
  else
    echo "not ok - remount with -o index=$name"
  fi
else
  echo "not ok - heapfs -o index=$name mounts: $(cat "$TESTTMP/mi.err")"
fi
rm -f "/$name" "/$name".retained-* 2>/dev/null

# ---- -o names=FILE, relative, daemonised ----
bmd=$CORPUS/bmd/slurp_hprof-32.bmd
if [ -f "$bmd" ]; then
  printf 'java.util.HashMap\njava/util/Vector\n' >"$D/few.txt"
  if daemon mi -o index=none -o names=few.txt "$bmd"; then
    check "-o names=few.txt (relative, daemonised) is read" grep -q "^names resolved: 2 of .* from $D/few.txt;" "$D/mi/info"
    fusermount3 -u "$D/mi"
  else
    echo "not ok - heapfs -o names=few.txt mounts: $(cat "$TESTTMP/mi.err")"
  fi
fi

# ---- where the index files go, said before any is written ----
# --check: one line; the place a mount then writes to is that one
line=$(cd "$D" && "$HEAPFS" --check r.hprof | grep '^index files')
check_eq "--check says where a mount keeps the index files" \
  "index files (a mount's; --check writes none): $D/r.hprof.heapfs-index and .retained-* beside it (-o index=none: none)" "$line"
check "--check wrote none" test ! -e "$D/r.hprof.heapfs-index"
check_eq "--check -o index=none says none will be written" \
  "index files (a mount's; --check writes none): none (-o index=none): $D/r.hprof is indexed at every mount" \
  "$(cd "$D" && "$HEAPFS" --check -o index=none r.hprof | grep '^index files')"
check_eq "--check -o index=FILE (relative) names that file" \
  "index files (a mount's; --check writes none): $D/my.ix and .retained-* beside it (-o index=none: none)" \
  "$(cd "$D" && "$HEAPFS" --check -o index=my.ix r.hprof | grep '^index files')"
check "--check on a format with no index file says nothing of one" \
  bash -c "! '$HEAPFS' --check '$CORPUS/bmd/slurp_hprof-32.bmd' | grep -q '^index files'"
# a directory this user may not write: the cache directory, and why
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
  chmod 755 "$TESTTMP" "$D"
  got=$(runuser -u nobody -- env XDG_CACHE_HOME="$TESTTMP/nobody-cache" "$HEAPFS" --check "$D/r.hprof" | grep '^index files')
  check "--check in a directory this user may not write: the cache directory, and why ($got)" \
    grep -qxE "index files \(a mount's; --check writes none\): $TESTTMP/nobody-cache/heapfs/r.hprof-[0-9a-f]{16}.heapfs-index and .retained-\* beside it \($D is not writable; -o index=none: none\)" <<<"$got"
fi
# a mount on a terminal says it in one line on stderr, where the file then goes
if command -v script >/dev/null; then
  script -qec "cd '$D' && '$HEAPFS' r.hprof m" "$TESTTMP/tty.log" >/dev/null 2>&1
  HF_MOUNTS+=("$D/m")
  check_eq "a mount on a terminal says where the index files go, in one line" \
    "heapfs: index files: $D/r.hprof.heapfs-index and .retained-* beside it (-o index=none: none)" \
    "$(grep -a 'index files' "$TESTTMP/tty.log" | tr -d '\r')"
  check "... and writes the index file there" wait_line "$D/m/.stats" "^index: .*written to $D/r.hprof.heapfs-index "
  fusermount3 -u "$D/m"
else
  echo "ok - a mount on a terminal says where the index files go # SKIP no script(1)"
fi
