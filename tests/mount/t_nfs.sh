#!/usr/bin/env bash
# t_nfs.sh - a mounted dump shared over NFS, end to end, with a real NFS
# server (nfs-ganesha, VFS backend) and a real client (libnfs), loopback only.
#
#  1. Listings of each kind of directory and a sample of files of every kind
#     the tree has (picked from the local mount) read over NFSv4 (and NFSv3)
#     byte-identical to the local read; symlink targets equal; sizes seen
#     over NFS equal the local ones.  A core kind the tree lacks (info,
#     histogram, strings, classes/*/info, objects/*/fields, refs symlinks,
#     latest, the tables: tables/*.tsv, classes/*/table.tsv) fails the test.
#  2. The same after `echo 3 > /proc/sys/vm/drop_caches`, with ganesha
#     running; then with ganesha restarted and the caches dropped again, so
#     nothing holds an inode: file handles taken before (by the kernel with
#     name_to_handle_at, and by the NFS client) still open, list and read.
#  3. heapfs restarted on the same dump: same inode numbers, same kernel
#     handles (node id + generation); old kernel handles open on the new
#     mount; NFS handles held from before read, list and readlink the same
#     bytes once the export is re-added in ganesha (SIGHUP without, then with
#     the EXPORT block: a running ganesha keeps the dead mount otherwise).
#  4. A directory of tens of thousands of objects lists completely.
#
# Runs as root (ganesha's VFS backend uses open_by_handle_at).  Installs
# nfs-ganesha, nfs-ganesha-vfs, libnfs-utils and libnfs-dev when missing.
# When it can, it runs inside private network and mount namespaces
# (unshare): only a loopback interface exists there, so a private rpcbind
# can serve NFSv3 without touching the host, and every mount made here
# vanishes with the namespace.  Without unshare it runs on the host's
# loopback, NFSv4 only.  Ganesha binds 127.0.0.1 only, on free ports.
#
# HF_NFS_DUMP (default corpus slurp_hprof-64.bin) is the dump read in
# 1-3; HF_NFS_BIG (default leakcanary_leak_service_binder.hprof, 44418
# objects) the one listed in 4.  HF_NFS_NO_NS=1 runs on the host's
# loopback even where namespaces work (NFSv4 only).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../programs/nfs" && pwd)

# ---- what it needs ----
if [ "$(id -u)" != 0 ]; then
  echo "not ok - t_nfs needs root (ganesha's VFS backend needs CAP_DAC_READ_SEARCH; drop_caches)"
  exit 0
fi
if [ -z "${HF_NFS_INNER:-}" ]; then
  missing=()
  command -v ganesha.nfsd >/dev/null || missing+=(nfs-ganesha)
  dpkg-query -W -f='${Status}' nfs-ganesha-vfs 2>/dev/null | grep -q 'install ok installed' ||
    missing+=(nfs-ganesha-vfs)
  { command -v nfs-ls && command -v nfs-cat; } >/dev/null || missing+=(libnfs-utils)
  pkg-config --exists libnfs 2>/dev/null || missing+=(libnfs-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "# installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # Keep the packages' services (ganesha on 0.0.0.0:2049, rpcbind) from
    # being started by the install, unless the machine has a policy already.
    policy=
    [ -e /usr/sbin/policy-rc.d ] || { policy=/usr/sbin/policy-rc.d;
      printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod 755 "$policy"; }
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 &&
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; }
    rc=$?
    [ -n "$policy" ] && rm -f "$policy"
    [ "$rc" = 0 ] || { echo "not ok - install ${missing[*]} (apt-get failed)"; exit 0; }
  fi
  # Private network + mount namespaces when possible (see the top).
  if [ -z "${HF_NFS_NO_NS:-}" ] && command -v unshare >/dev/null && command -v ip >/dev/null &&
     unshare -n -m true 2>/dev/null; then
    HF_NFS_INNER=1 exec unshare -n -m bash "${BASH_SOURCE[0]}" "$@"
  fi
  HF_NFS_INNER=0
fi

RPCBIND_PID=
NFS_V3=0
if [ "$HF_NFS_INNER" = 1 ]; then
  ip link set lo up
  # glibc's getaddrinfo(AI_ADDRCONFIG), which ganesha uses to read
  # Bind_Addr, finds nothing while only loopback addresses exist.
  ip addr add 192.0.2.1/32 dev lo
  # rpcbind's socket lives in /run: give it a private one.
  mount -t tmpfs -o mode=755,size=1m heapfs-nfs-run /run
  rpcbind=$(command -v rpcbind || echo /sbin/rpcbind)
  if [ -x "$rpcbind" ]; then
    "$rpcbind" -f &
    RPCBIND_PID=$!
    for i in $(seq 50); do [ -S /run/rpcbind.sock ] && break; sleep 0.1; done
    [ -S /run/rpcbind.sock ] && NFS_V3=1
  fi
fi
[ "$NFS_V3" = 1 ] || echo "# NFSv3 not tested: it needs rpcbind, which this test runs only in a private network namespace (unshare)"

source "$HERE/lib.sh"
source "$SRC/ganesha.sh"

t_nfs_cleanup() {
  nfs_stop
  [ -n "$RPCBIND_PID" ] && { kill "$RPCBIND_PID" 2>/dev/null; wait "$RPCBIND_PID" 2>/dev/null; }
  hf_cleanup
}
trap t_nfs_cleanup EXIT
trap 'exit 1' INT TERM HUP   # so that the EXIT trap runs on a timeout too

DUMP=${HF_NFS_DUMP:-$CORPUS/hprof/slurp_hprof-64.bin}
BIG=${HF_NFS_BIG:-$CORPUS/hprof/leakcanary_leak_service_binder.hprof}
T0=$(date +%s.%N)
elapsed() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

if ! [ -w /proc/sys/vm/drop_caches ]; then
  echo "not ok - /proc/sys/vm/drop_caches is writable"
  exit 0
fi
NFSFH=$TESTTMP/nfsfh
FUSEFH=$TESTTMP/fusefh
if ! cc -O2 -o "$NFSFH" "$SRC/nfsfh.c" $(pkg-config --cflags --libs libnfs) 2>"$TESTTMP/cc.log" ||
   ! cc -O2 -o "$FUSEFH" "$SRC/fusefh.c" 2>>"$TESTTMP/cc.log"; then
  echo "not ok - the NFS test helpers build"; sed 's/^/#   /' "$TESTTMP/cc.log"; exit 0
fi

if ! hf_mount "$DUMP"; then
  echo "not ok - $(basename "$DUMP") mounts"; exit 0
fi
HFPID=${HF_PIDS[-1]}

# ---- the sample: one line per path, "KIND<TAB>TYPE<TAB>PATH", TYPE f d l ----
SAMPLES=$TESTTMP/samples
: >"$SAMPLES"
add() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$SAMPLES"; }
type_of() { if [ -L "$MNT/$1" ]; then echo l; elif [ -d "$MNT/$1" ]; then echo d; else echo f; fi; }
join() { if [ "$1" = . ]; then echo "$2"; else echo "$1/$2"; fi; }
# add_entries KIND-PREFIX DIR: every entry of DIR, kind "PREFIX NAME[ symlink]"
add_entries() {
  local e t
  while IFS= read -r e; do
    t=$(type_of "$2/$e")
    case $t in
      f) add "$1 $e" f "$(join "$2" "$e")" ;;
      l) add "$1 $e symlink" l "$(join "$2" "$e")" ;;
    esac
  done < <(ls -A "$MNT/$2")
}
# spread FILE: lines 1, n/3, 2n/3 and n of FILE (distinct)
spread() {
  local n; n=$(wc -l <"$1")
  [ "$n" -gt 0 ] || return 0
  sed -n "1p;$(( (n + 2) / 3 ))p;$(( (2 * n + 2) / 3 ))p;${n}p" "$1" | awk '!seen[$0]++'
}

S=$(readlink "$MNT/latest")   # snapshots/N
add "root dir" d .
add_entries "" .
sed -i 's/^ /root /' "$SAMPLES"
add "snapshots dir" d snapshots
add "snapshot dir" d "$S"
while IFS= read -r e; do
  case $(type_of "$S/$e") in
    f) add "snapshot $e" f "$S/$e" ;;
    d) case $e in
         classes|objects) ;;
         *) add "snapshot subdir" d "$S/$e"; add_entries "snapshot $e" "$S/$e" ;;
       esac ;;
  esac
done < <(ls -A "$MNT/$S")
if [ -d "$MNT/$S/classes" ]; then
  add "classes dir" d "$S/classes"
  ls "$MNT/$S/classes" >"$TESTTMP/classes"
  { spread "$TESTTMP/classes"; grep -x 'java.lang.String' "$TESTTMP/classes"
    # a class with a super link
    while IFS= read -r c; do [ -L "$MNT/$S/classes/$c/super" ] && { echo "$c"; break; }; done <"$TESTTMP/classes"
  } | awk '!seen[$0]++' | grep -v '[?#]' >"$TESTTMP/classes.picked"
  while IFS= read -r c; do
    add "class dir" d "$S/classes/$c"
    add_entries "class" "$S/classes/$c"
  done <"$TESTTMP/classes.picked"
fi
if [ -d "$MNT/$S/objects" ]; then
  add "objects dir" d "$S/objects"
  ls "$MNT/$S/objects" >"$TESTTMP/objects"
  { spread "$TESTTMP/objects"
    # a String (it has a value), then objects that have refs/
    [ -f "$MNT/$S/classes/java.lang.String/instances" ] &&
      grep -o -m1 '0x[0-9a-f]*' "$MNT/$S/classes/java.lang.String/instances"
    head -3000 "$TESTTMP/objects" | while IFS= read -r o; do
      [ -d "$MNT/$S/objects/$o/refs" ] && [ -n "$(ls -A "$MNT/$S/objects/$o/refs")" ] && echo "$o"
    done | head -3
  } | awk '!seen[$0]++' >"$TESTTMP/objects.picked"
  while IFS= read -r o; do
    [ -d "$MNT/$S/objects/$o" ] || continue
    add "object dir" d "$S/objects/$o"
    add_entries "object" "$S/objects/$o"
    if [ -d "$MNT/$S/objects/$o/refs" ]; then
      add "refs dir" d "$S/objects/$o/refs"
      ls -A "$MNT/$S/objects/$o/refs" | head -5 | while IFS= read -r r; do
        add "refs symlink" l "$S/objects/$o/refs/$r"
      done
    fi
  done <"$TESTTMP/objects.picked"
fi
if [ -d "$MNT/traces" ]; then
  add "traces dir" d traces
  ls "$MNT/traces" | sort -n | sed -n '1p;$p' | awk '!seen[$0]++' | while IFS= read -r t; do
    add "trace" f "traces/$t"
  done
fi
if [ -d "$MNT/threads" ]; then
  add "threads dir" d threads
  ls "$MNT/threads" | sed -n '1p;$p' | awk '!seen[$0]++' | grep -v '[?#]' | while IFS= read -r t; do
    add "thread dir" d "threads/$t"
    add_entries "thread" "threads/$t"
  done
fi
# libnfs URLs cannot carry '?' or '#' in a path
grep -v $'\t.*[?#]' "$SAMPLES" >"$SAMPLES.ok"; mv "$SAMPLES.ok" "$SAMPLES"

kinds() { cut -f1 "$SAMPLES" | awk '!seen[$0]++'; }
echo "# $(basename "$DUMP"): $(wc -l <"$SAMPLES") sampled paths of $(kinds | wc -l) kinds: $(kinds | tr '\n' ',' | sed 's/,$//')"
for k in "root info" "snapshot info" "snapshot histogram" "snapshot strings" "class info" \
         "object fields" "refs symlink" "root latest symlink" "snapshot tables objects.tsv" \
         "snapshot tables references.tsv" "snapshot tables classes.tsv" "class table.tsv"; do
  if kinds | grep -qx "$k"; then echo "ok - the tree has: $k"; else echo "not ok - the tree has: $k"; fi
done
absent=()
for k in "snapshot heap.pprof" "trace" "thread stack" "snapshot roots" "snapshot sites" \
         "snapshot stacks.folded" "class super symlink" "object value" "object class symlink"; do
  kinds | grep -qx "$k" || absent+=("$k")
done
[ ${#absent[@]} -eq 0 ] || echo "# not in this tree (not read over NFS): ${absent[*]}"

# ---- reading over NFS ----
# url PROTO PATH [dir]: the libnfs URL of PATH ("." is the export's root)
url() {
  local u q p=$2
  if [ "$1" = 3 ]; then u=$NFS_URL3; q=$NFS_Q3; else u=$NFS_URL; q=$NFS_Q; fi
  [ "$p" = . ] && p=
  if [ -n "${3:-}" ]; then echo "$u/${p:+$p/}$q"; else echo "$u/$p$q"; fi
}
# Listings normalized to "MODE SIZE NAME", sorted.
nfs_list() {
  nfs-ls "$(url "$1" "$2" dir)" 2>"$TESTTMP/err" |
    sed -E 's/^([^ ]+) +[0-9]+ +[0-9]+ +[0-9]+ +([0-9]+) (.*)$/\1 \2 \3/' | LC_ALL=C sort
}
local_list() { find "$MNT/$1" -mindepth 1 -maxdepth 1 -printf '%M %s %f\n' | LC_ALL=C sort; }

# compare_by_path PROTO LABEL PER_KIND: every sample over NFS by its path.
# Files: nfs-cat equals the local bytes; directories: nfs-ls equals the
# local listing (modes, sizes, names); symlinks: target equals readlink
# (NFSv4; by a handle looked up by path).  One line per kind when
# PER_KIND=1, else one line for all.
compare_by_path() {
  local proto=$1 label=$2 per_kind=$3 kind t p bad total=0 nbad=0 k
  : >"$TESTTMP/bad"
  while IFS= read -r k; do
    bad=0
    while IFS=$'\t' read -r kind t p; do
      [ "$kind" = "$k" ] || continue
      case $t in
        f) nfs-cat "$(url "$proto" "$p")" >"$TESTTMP/got" 2>"$TESTTMP/err" &&
             cmp -s "$TESTTMP/got" "$MNT/$p" || { bad=$((bad + 1)); echo "$k: $p" >>"$TESTTMP/bad"; } ;;
        d) if [ "$k" = "objects dir" ] || [ "$k" = "classes dir" ]; then
             # big: compare names and types only (sizes are all 0)
             cmp -s <(nfs_list "$proto" "$p" | cut -c1) <(local_list "$p" | cut -c1) &&
               cmp -s <(nfs_list "$proto" "$p" | cut -d' ' -f3-) <(local_list "$p" | cut -d' ' -f3-)
           else
             cmp -s <(nfs_list "$proto" "$p") <(local_list "$p")
           fi || { bad=$((bad + 1)); echo "$k: $p" >>"$TESTTMP/bad"; } ;;
        l) [ "$proto" = 4 ] || continue
           h=$("$NFSFH" get "$(url 4 "")" "$p" 2>"$TESTTMP/err") &&
             [ "$("$NFSFH" readlink "$(url 4 "")" "$h" 2>>"$TESTTMP/err")" = "$(readlink "$MNT/$p")" ] ||
             { bad=$((bad + 1)); echo "$k: $p" >>"$TESTTMP/bad"; } ;;
      esac
      total=$((total + 1))
    done <"$SAMPLES"
    nbad=$((nbad + bad))
    if [ "$per_kind" = 1 ]; then
      n=$(grep -c -P "^\Q$k\E\t" "$SAMPLES")
      if [ "$proto" = 3 ] && [[ "$k" == *symlink ]]; then continue; fi
      if [ "$bad" = 0 ]; then echo "ok - $label: $k ($n)"; else echo "not ok - $label: $k ($bad of $n differ)"; fi
    fi
  done < <(kinds)
  if [ "$per_kind" != 1 ]; then
    if [ "$nbad" = 0 ]; then echo "ok - $label: all $total sampled paths"; else echo "not ok - $label: $nbad of $total differ"; fi
  fi
  sed 's/^/# differs: /' "$TESTTMP/bad" | head -20
  [ "$nbad" = 0 ] || sed 's/^/#   /' "$TESTTMP/err" | head -5
}

if ! nfs_start "$TESTTMP/ganesha" "$MNT"; then
  echo "not ok - ganesha starts and exports the mount"; exit 0
fi
echo "ok - ganesha exports the mount read-only on 127.0.0.1:$NFS_PORT"

# 1. everything over NFSv4 (and NFSv3) by path
compare_by_path 4 "NFSv4 equals local" 1
[ "$NFS_V3" = 1 ] && compare_by_path 3 "NFSv3 equals local" 0
echo "# timing: reads by path done at $(elapsed) s"

# Handles held from now on: the first path of each kind.  Expected
# contents saved now: files' bytes, directories' sorted names, link targets.
HELD=$TESTTMP/held
mkdir -p "$HELD"
: >"$HELD/list"
i=0
while IFS=$'\t' read -r kind t p; do
  grep -q -P "^\Q$kind\E\t" "$HELD/list" && continue
  i=$((i + 1))
  case $t in
    f) cat "$MNT/$p" >"$HELD/$i.want" ;;
    d) ls -A "$MNT/$p" | LC_ALL=C sort >"$HELD/$i.want" ;;
    l) readlink "$MNT/$p" >"$HELD/$i.want" ;;
  esac
  h4=$("$NFSFH" get "$(url 4 "")" "$p" 2>/dev/null) || h4=-
  h3=-
  [ "$NFS_V3" = 1 ] && [ "$t" = f ] && { h3=$("$NFSFH" get "$(url 3 "")" "$p" 2>/dev/null) || h3=-; }
  kh=$("$FUSEFH" get "$MNT/$p" 2>/dev/null | awk '{print $1 ":" $2}') || kh=-
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$t" "$p" "$i" "$h4" "$h3" "${kh:--}" >>"$HELD/list"
done <"$SAMPLES"
echo "# $(wc -l <"$HELD/list") paths held by handle"
check_eq "NFSv4 handles obtained for one path of each kind" 0 "$(cut -f5 "$HELD/list" | grep -cx -- -)"
check_eq "kernel handles (name_to_handle_at) obtained for one path of each kind" 0 "$(cut -f7 "$HELD/list" | grep -cx -- -)"

# held_nfs PROTO LABEL: read, list or readlink each held handle; compare.
# Files and links first: ganesha's READDIR looks every entry up by name,
# which would bring the inodes of a directory's files back into the kernel.
held_nfs() {
  local proto=$1 label=$2 kind t p i h4 h3 kh h bad=0 n=0 cmd
  : >"$TESTTMP/bad"
  while IFS=$'\t' read -r kind t p i h4 h3 kh; do
    if [ "$proto" = 3 ]; then h=$h3; else h=$h4; fi
    [ "$h" = - ] && continue
    case $t in f) cmd="cat" ;; d) cmd="ls" ;; l) cmd="readlink" ;; esac
    n=$((n + 1))
    if "$NFSFH" "$cmd" "$(url "$proto" "")" "$h" >"$TESTTMP/got" 2>"$TESTTMP/err"; then
      [ "$t" = d ] && LC_ALL=C sort -o "$TESTTMP/got" "$TESTTMP/got"
      cmp -s "$TESTTMP/got" "$HELD/$i.want" && continue
    fi
    bad=$((bad + 1)); echo "$kind: $p: $(head -c 200 "$TESTTMP/err")" >>"$TESTTMP/bad"
  done < <(grep -v -P '^[^\t]*\td\t' "$HELD/list"; grep -P '^[^\t]*\td\t' "$HELD/list")
  if [ "$bad" = 0 ]; then echo "ok - $label ($n handles)"; else echo "not ok - $label ($bad of $n fail)"; fi
  sed 's/^/# /' "$TESTTMP/bad" | head -20
}
# held_kernel LABEL: open_by_handle_at each kernel handle on the mount.
held_kernel() {
  local label=$1 kind t p i h4 h3 kh bad=0 n=0
  : >"$TESTTMP/bad"
  while IFS=$'\t' read -r kind t p i h4 h3 kh; do
    [ "$kh" = - ] && continue
    n=$((n + 1))
    if "$FUSEFH" cat "$MNT" "${kh#*:}" "${kh%%:*}" >"$TESTTMP/got" 2>"$TESTTMP/err"; then
      [ "$t" = d ] && { grep -v -F -x -e . -e .. "$TESTTMP/got" | LC_ALL=C sort >"$TESTTMP/got2"; mv "$TESTTMP/got2" "$TESTTMP/got"; }
      cmp -s "$TESTTMP/got" "$HELD/$i.want" && continue
    fi
    bad=$((bad + 1)); echo "$kind: $p: $(cat "$TESTTMP/err")" >>"$TESTTMP/bad"
  done <"$HELD/list"
  if [ "$bad" = 0 ]; then echo "ok - $label ($n handles)"; else echo "not ok - $label ($bad of $n fail)"; fi
  sed 's/^/# /' "$TESTTMP/bad" | head -20
}
held_nfs 4 "held NFSv4 handles read, list, readlink"

# 2. the kernel forgets inodes
echo 3 >/proc/sys/vm/drop_caches
compare_by_path 4 "after drop_caches, NFSv4 by path equals local" 0
held_nfs 4 "after drop_caches, held NFSv4 handles still work"

# Ganesha holds files open (and so their dentries and parents) while it
# runs: restart it so that nothing pins an inode, drop the caches, and use
# the handles alone, before any path lookup brings inodes back.  (Without
# heapfs answering LOOKUP(node, ".") for files, these fail with STALE.)
fresh_ganesha() {
  nfs_stop
  echo 3 >/proc/sys/vm/drop_caches
  nfs_start "$TESTTMP/ganesha" "$MNT" || { echo "not ok - ganesha restarts"; exit 0; }
  echo 3 >/proc/sys/vm/drop_caches
}
fresh_ganesha
held_nfs 4 "ganesha restarted, caches dropped: held NFSv4 handles work"
if [ "$NFS_V3" = 1 ]; then
  fresh_ganesha
  held_nfs 3 "ganesha restarted, caches dropped: held NFSv3 handles work"
fi
nfs_stop
echo 3 >/proc/sys/vm/drop_caches
held_kernel "after drop_caches, kernel handles open by handle alone (LOOKUP . and ..)"
nfs_start "$TESTTMP/ganesha" "$MNT" || { echo "not ok - ganesha restarts"; exit 0; }
echo "# timing: drop_caches checks done at $(elapsed) s"

# 3. heapfs restarted on the same dump
inodes() { while IFS=$'\t' read -r kind t p rest; do stat -c %i "$MNT/$p"; done <"$HELD/list"; }
ino_before=$(inodes | tr '\n' ' ')
kill -TERM "$HFPID"
wait "$HFPID" 2>/dev/null
"$HEAPFS" -f -o index=none "$DUMP" "$MNT" 2>>"$MNT.log" &
HFPID=$!
HF_PIDS+=("$HFPID")
for i in $(seq 600); do mountpoint -q "$MNT" && break; kill -0 "$HFPID" 2>/dev/null || break; sleep 0.1; done
if ! mountpoint -q "$MNT"; then echo "not ok - heapfs restarts on the same mount point"; exit 0; fi
echo "ok - heapfs restarted on the same dump and mount point"
# Handles first, before any path lookup on the new mount.
held_kernel "restarted heapfs opens the old kernel handles"
echo 3 >/proc/sys/vm/drop_caches
nfs_export_drop && nfs_export_add
held_nfs 4 "restarted heapfs, export re-added: held NFSv4 handles work"
[ "$NFS_V3" = 1 ] && held_nfs 3 "restarted heapfs, export re-added: held NFSv3 handles work"
check_eq "same inode numbers after the restart" "$ino_before" "$(inodes | tr '\n' ' ')"
kh_now=$(while IFS=$'\t' read -r kind t p i h4 h3 kh; do
  "$FUSEFH" get "$MNT/$p" 2>/dev/null | awk '{print $1 ":" $2}'; done <"$HELD/list" | tr '\n' ' ')
check_eq "same kernel handles (node id and generation) after the restart" \
  "$(cut -f7 "$HELD/list" | tr '\n' ' ')" "$kh_now"
compare_by_path 4 "restarted heapfs, NFSv4 by path equals local" 0
echo "# timing: restart checks done at $(elapsed) s"

# 4. a large directory
if hf_mount "$BIG"; then
  S2=$(readlink "$MNT/latest")
  want=$(ls "$MNT/$S2/objects" | wc -l)
  nfs_export_drop && nfs_export_add "$MNT"
  got=$(nfs-ls "$(url 4 "$S2/objects" dir)" 2>/dev/null | wc -l)
  check_eq "large directory: NFSv4 lists all $want objects of $(basename "$BIG")" "$want" "$got"
  check "large directory: the same names over NFSv4" \
    cmp <(nfs_list 4 "$S2/objects" | cut -d' ' -f3-) <(local_list "$S2/objects" | cut -d' ' -f3-)
  h=$("$NFSFH" get "$(url 4 "")" "$S2/objects")
  check_eq "large directory: NFSv4 READDIR by a handle lists all $want" "$want" \
    "$("$NFSFH" ls "$(url 4 "")" "$h" | wc -l)"
  if [ "$NFS_V3" = 1 ]; then
    check_eq "large directory: NFSv3 lists all $want objects" "$want" \
      "$(nfs-ls "$(url 3 "$S2/objects" dir)" 2>/dev/null | wc -l)"
  fi
  check "sizes over NFS equal local ones: $S2 of $(basename "$BIG")" \
    cmp <(nfs_list 4 "$S2") <(local_list "$S2")
  cls=$(ls "$MNT/$S2/classes" | grep -v '[?#]' | head -1)
  check "sizes over NFS equal local ones: a class of $(basename "$BIG")" \
    cmp <(nfs_list 4 "$S2/classes/$cls") <(local_list "$S2/classes/$cls")
else
  echo "not ok - $(basename "$BIG") mounts"
fi
# The first daemon has exited (SIGTERM at the restart): under SANITIZE=1 its
# log holds any sanitizer report.
if grep -q -E 'Sanitizer|runtime error' "$TESTTMP"/mnt.*.log 2>/dev/null; then
  echo "not ok - heapfs daemons ran without sanitizer reports"
  grep -h -A5 -E 'Sanitizer|runtime error' "$TESTTMP"/mnt.*.log | head -20 | sed 's/^/#   /'
else
  echo "ok - heapfs daemons ran without sanitizer reports"
fi
echo "# timing: total $(elapsed) s"
