#!/usr/bin/env bash
# report.sh NAME DIR - one line for DIR/report.txt from a libFuzzer run's log
# (DIR/logs/NAME.log, exit status in DIR/logs/NAME.rc): executions, corpus
# size, and what it found.  Used by tests/fuzz/fuzz.mk (make fuzz).
set -u
name=$1 dir=$2
log=$dir/logs/$name.log
rc=$(cat "$dir/logs/$name.rc" 2>/dev/null || echo '?')
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
secs=$(sed -n 's/^stat::.*//; s/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -1)
peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
cov=$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
corpus=$(find "$dir/corpus/$name" -type f 2>/dev/null | wc -l)
found=$(grep -a -m1 -E '^(==[0-9]+==ERROR|SUMMARY: |.*runtime error:|fuzz_[a-z-]*: (contract broken|refused without)|==[0-9]+== ERROR: libFuzzer)' "$log")
art=$(sed -n 's/.*Test unit written to \(.*\)/\1/p' "$log" | head -1)
if [ -n "$found$art" ] || { [ "$rc" != 0 ] && [ "$rc" != '?' ]; }; then
  what="FOUND: ${found:-exit $rc} ${art:+(input: $art)}"
else
  what="found nothing"
fi
printf '%s: %s executions%s, coverage %s, corpus %s inputs, peak RSS %s MB: %s\n' \
  "$name" "${execs:-?}" "${secs:+ in ${secs}s}" "${cov:-?}" "$corpus" "${peak:-?}" "$what" \
  | tee -a "$dir/report.txt"
