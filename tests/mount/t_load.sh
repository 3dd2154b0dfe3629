#!/usr/bin/env bash
# t_load.sh - heavy concurrent load on one mount with a cache far smaller
# than its views: LOAD_PROCS (16) processes for LOAD_SECONDS (20) doing cat,
# ls, stat, readlink and grep -r over random parts of the tree, at once.
# Checked:
#   - no command fails (every read, listing, stat and grep succeeds);
#   - every byte read equals a single-threaded reference read (taken first
#     from a second mount, `-s` single-threaded, default 256M cache), and
#     every stat size equals the reference size; grep -r output too;
#   - the daemon stays up, and its memory is bounded: RSS after the load,
#     and its peak (VmHWM), stay within LOAD_RSS_MB (64) of the RSS before;
#   - after the load, every sampled file still reads back identical.
# Prints the throughput (operations and MB/s) and the RSS figures as
# "# " lines.
source "$(dirname "$0")/lib.sh"

DUMP=${LOAD_DUMP:-$CORPUS/hprof/leakcanary_leak_service_binder.hprof}
PROCS=${LOAD_PROCS:-16}
SECS=${LOAD_SECONDS:-20}
RSS_MB=${LOAD_RSS_MB:-64}
# Under `make check SANITIZE=1` the daemon runs with AddressSanitizer, whose
# quarantine holds freed memory on purpose: keep it small, allow more.
case "${B:-}" in *san*)
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
  RSS_MB=${LOAD_RSS_MB:-160} ;;
esac
[ -f "$DUMP" ] || { echo "not ok - load dump $DUMP exists"; exit 1; }
W=$TESTTMP/load
mkdir -p "$W"

# ---- the reference: single-threaded daemon, big cache, read in order ----
hf_mount "$DUMP" -s || { echo "not ok - reference mount"; exit 1; }
REF=$MNT
cd "$REF" || exit 1
# The sample: every top-level and snapshot file, and a spread of classes,
# objects, traces and threads (the same list both sides).
{
  find . -maxdepth 1 -type f
  find latest/ -maxdepth 1 -type f
  find latest/ -maxdepth 2 -mindepth 2 -path '*/cpu/*' -type f 2>/dev/null
  ls latest/classes | awk 'NR % 9 == 1' | head -100 | sed 's|^|latest/classes/|; s|$|/info|'
  ls latest/classes | awk 'NR % 11 == 2' | head -80 | while read -r c; do
    for f in fields statics instances; do [ -e "latest/classes/$c/$f" ] && echo "latest/classes/$c/$f"; done
  done
  ls latest/objects | awk 'NR % 97 == 3' | head -150 | while read -r o; do
    for f in info fields value; do [ -e "latest/objects/$o/$f" ] && echo "latest/objects/$o/$f"; done
  done
  [ -d traces ] && ls traces | head -50 | sed 's|^|traces/|'
  # views bigger than the load mount's whole cache: instances of big classes
  stat -c '%s %n' latest/classes/*/instances 2>/dev/null | sort -rn | awk '$1 > 65536 {print $2}' | head -40
  [ -d threads ] && find threads -mindepth 2 -type f | head -50
} | sed 's|^\./||' | sort -u >"$W/files"
ls -d latest/classes/* | awk 'NR % 13 == 5' | head -60 | sed 's|^\./||' >"$W/dirs"
ls -d latest/objects/* | awk 'NR % 211 == 7' | head -100 >>"$W/dirs"
ls latest/objects | awk 'NR % 53 == 1' | head -80 | while read -r o; do
  [ -d "latest/objects/$o/refs" ] && find "latest/objects/$o/refs" -type l | head -3
done >"$W/links"
echo latest >>"$W/links"
{ echo "latest/classes java"; echo "latest/objects/$(ls latest/objects | sed -n 500p) ."; 
  [ -d threads ] && echo "threads main"; [ -d traces ] && echo "traces java";
  echo "latest/classes/$(ls latest/classes | sed -n 3p) ."; } >"$W/greps"
nf=$(wc -l <"$W/files"); nd=$(wc -l <"$W/dirs"); nl=$(wc -l <"$W/links")
# reference contents, one process, one file at a time
while read -r f; do
  printf '%s %s %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$(stat -c %s "$f")" "$f"
done <"$W/files" >"$W/ref.files"
while read -r d; do printf '%s %s\n' "$(ls -a "$d" | sha256sum | cut -c1-64)" "$d"; done <"$W/dirs" >"$W/ref.dirs"
while read -r l; do printf '%s %s\n' "$(readlink "$l")" "$l"; done <"$W/links" >"$W/ref.links"
n=0
while read -r sub pat; do
  n=$((n + 1)); grep -r -- "$pat" "$sub" | sha256sum | cut -c1-64 >"$W/ref.grep.$n"
done <"$W/greps"
ng=$n
refbytes=$(awk '{s += $2} END {print s}' "$W/ref.files")
awk '$2 > 65536' "$W/ref.files" >"$W/ref.big"
echo "# sample: $nf files ($refbytes bytes; $(wc -l <"$W/ref.big") bigger than the 64K cache), $nd dirs, $nl links, $ng grep -r subtrees of $(basename "$DUMP")"
cd "$ROOT" || exit 1
check "reference sums were taken" test "$(wc -l <"$W/ref.files")" -eq "$nf"

# ---- the load mount: multi-threaded, 64K cache ----
hf_mount "$DUMP" -o cache_size=64K || { echo "not ok - load mount"; exit 1; }
L=$MNT
LPID=${HF_PIDS[-1]}
cat "$L/info" >/dev/null
rss() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$LPID/status"; }
rss0=$(rss VmRSS)

# worker ID: random operations until the deadline; one line per failure.
worker() {
  local id=$1 end=$2 ops=0 bytes=0 fails=0 i f want size got line d l sub pat
  RANDOM=$((id * 7919 + 17))
  cd "$L" || exit 1
  mapfile -t F <"$W/ref.files"; mapfile -t D <"$W/ref.dirs"; mapfile -t K <"$W/ref.links"
  mapfile -t G <"$W/greps"; mapfile -t BIG <"$W/ref.big"
  while [ "$(date +%s)" -lt "$end" ]; do
    case $((RANDOM % 10)) in
      0|1|2|3)  # cat a file (every other time one bigger than the cache)
        if [ $((RANDOM % 2)) = 0 ] && [ ${#BIG[@]} -gt 0 ]; then line=${BIG[$((RANDOM % ${#BIG[@]}))]}
        else line=${F[$((RANDOM % ${#F[@]}))]}; fi
        want=${line%% *}; f=${line#* * }
        got=$(timeout 60 cat -- "$f" | sha256sum | cut -c1-64)
        size=${line#* }; size=${size%% *}
        [ "$got" = "$want" ] || { echo "cat $f: bytes differ"; fails=$((fails + 1)); }
        bytes=$((bytes + size)) ;;
      4)  # read a piece at a random offset
        line=${F[$((RANDOM % ${#F[@]}))]}; f=${line#* * }; size=${line#* }; size=${size%% *}
        [ "$size" -gt 0 ] || continue
        i=$(( (RANDOM * 32768 + RANDOM) % size ))
        got=$(timeout 60 tail -c +$((i + 1)) -- "$f" | head -c 5000 | sha256sum | cut -c1-64)
        want=$(cd "$REF" && tail -c +$((i + 1)) -- "$f" | head -c 5000 | sha256sum | cut -c1-64)
        [ "$got" = "$want" ] || { echo "read $f at $i: bytes differ"; fails=$((fails + 1)); } ;;
      5|6)  # stat: exact size before reading
        line=${F[$((RANDOM % ${#F[@]}))]}; f=${line#* * }; size=${line#* }; size=${size%% *}
        got=$(stat -c %s -- "$f") || { echo "stat $f failed"; fails=$((fails + 1)); }
        [ "$got" = "$size" ] || { echo "stat $f: $got, want $size"; fails=$((fails + 1)); } ;;
      7)  # ls a directory
        line=${D[$((RANDOM % ${#D[@]}))]}; want=${line%% *}; d=${line#* }
        got=$(timeout 60 ls -a -- "$d" | sha256sum | cut -c1-64)
        [ "$got" = "$want" ] || { echo "ls $d: listing differs"; fails=$((fails + 1)); } ;;
      8)  # readlink
        line=${K[$((RANDOM % ${#K[@]}))]}; want=${line%% *}; l=${line#* }
        got=$(readlink -- "$l")
        [ "$got" = "$want" ] || { echo "readlink $l: '$got', want '$want'"; fails=$((fails + 1)); } ;;
      9)  # grep -r over a subtree
        i=$((RANDOM % ${#G[@]})); sub=${G[$i]%% *}; pat=${G[$i]#* }
        got=$(timeout 120 grep -r -- "$pat" "$sub" | sha256sum | cut -c1-64)
        [ "$got" = "$(cat "$W/ref.grep.$((i + 1))")" ] || { echo "grep -r $pat $sub: output differs"; fails=$((fails + 1)); } ;;
    esac
    ops=$((ops + 1))
  done
  echo "$ops $bytes $fails" >"$W/stats.$id"
}

end=$(( $(date +%s) + SECS ))
t0=$(date +%s.%N)
pids=()
for id in $(seq 1 "$PROCS"); do
  worker "$id" "$end" >"$W/fail.$id" 2>&1 &
  pids+=($!)
done
peak=0
while [ "$(date +%s)" -le "$end" ]; do
  r=$(rss VmRSS); [ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
  sleep 1
done
wait "${pids[@]}"
t1=$(date +%s.%N)
rss1=$(rss VmRSS); hwm=$(rss VmHWM)
ops=$(cat "$W"/stats.* | awk '{s += $1} END {print s + 0}')
bytes=$(cat "$W"/stats.* | awk '{s += $2} END {print s + 0}')
fails=$(cat "$W"/stats.* | awk '{s += $3} END {print s + 0}')
nstats=$(ls "$W"/stats.* 2>/dev/null | wc -l)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')
echo "# load: $PROCS processes, ${secs}s: $ops operations ($(awk -v o="$ops" -v s="$secs" 'BEGIN {printf "%.0f", o / s}') ops/s), $((bytes / 1024)) kB read by cat ($(awk -v b="$bytes" -v s="$secs" 'BEGIN {printf "%.0f", b / 1024 / s}') kB/s)"
echo "# daemon RSS: before ${rss0} kB, after ${rss1} kB, sampled peak ${peak} kB, VmHWM ${hwm} kB (bound: +${RSS_MB} MB)"
grep -hv '^$' "$W"/fail.* | sort | uniq -c | sort -rn | head -10 | sed 's/^/# /'
check_eq "all $PROCS load processes finished" "$PROCS" "$nstats"
check_eq "no operation failed or read different bytes under load ($ops operations)" 0 "$fails"
check "operations ran under load" test "$ops" -gt "$PROCS"
check "the daemon is still up after the load" mountpoint -q "$L"
check "daemon RSS after the load is within ${RSS_MB} MB of before" test $((rss1 - rss0)) -le $((RSS_MB * 1024))
check "daemon peak RSS (VmHWM) is within ${RSS_MB} MB of the RSS before" test $((hwm - rss0)) -le $((RSS_MB * 1024))
st=$(cat "$L/.stats")
echo "# cache: $(echo "$st" | tr '\n' ' ')"
evict=$(echo "$st" | sed -n 's/^evictions: *//p')
check "the tiny cache evicted under load (it was exercised)" test "${evict:-0}" -gt 0

# ---- afterwards: every sampled file, single reader, identical ----
cd "$L" || exit 1
bad=0
while read -r want size f; do
  [ "$(sha256sum <"$f" | cut -c1-64)" = "$want" ] || { bad=$((bad + 1)); echo "# differs after load: $f"; }
done <"$W/ref.files"
cd "$ROOT" || exit 1
check_eq "after the load, all $nf sampled files read back identical" 0 "$bad"
