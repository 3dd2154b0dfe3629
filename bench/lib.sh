# bench/lib.sh - timing and /proc helpers shared by the bench scripts (source it
# after setting OUT, the scratch directory).
now() { date +%s.%N; }
# secs CMD...: run CMD (output discarded), print wall seconds; fail if CMD fails.
secs() {
  local t0 t1 log="$OUT/$(basename "$0" .sh).log.$$"
  t0=$(now)
  "$@" >/dev/null 2>"$log" || { cat "$log" >&2; return 1; }
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# runs N CMD...: median wall time of N runs
runs() {
  local n=$1; shift
  local i t all=()
  for ((i = 0; i < n; i++)); do t=$(secs "$@") || return 1; all+=("$t"); done
  median "${all[@]}"
}
f2() { printf '%.2f' "$1"; }
f1() { printf '%.1f' "$1"; }
# kv KEY: the first word after "KEY:" in "key: value" lines on stdin
kv() { awk -v k="$1" 'index($0, k ":") == 1 { sub(/^[^:]*: */, ""); print $1; exit }'; }
rss_anon_kb() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
