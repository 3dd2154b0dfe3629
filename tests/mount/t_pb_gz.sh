#!/usr/bin/env bash
# t_pb_gz.sh - heap.pb.gz, the gzipped-protobuf twin of heap.pprof, for
# every format: `go tool pprof -top` on heap.pb.gz gives the totals
# `google-pprof --text` gives on heap.pprof, for each of the four sample
# types (in-use/allocated objects/bytes), in every corpus file and OEMP
# fixture.  Where google-pprof scales a sampled gperftools profile
# (heap_v2/N, heapz_v2/N) it sums unrounded values, while the profile
# holds each sample truncated, as google/pprof's own reader does: there the
# totals may differ by less than one per sample, and go tool pprof on the
# original file must give exactly heap.pb.gz's totals.  Also: two reads
# give the same bytes (the gzip header has no time).
. "$(dirname "$0")/lib.sh"

if ! command -v go >/dev/null 2>&1; then
  echo "ok - heap.pb.gz totals # SKIP go (package golang-go) is not installed"
  exit 0
fi
have_gp=0
command -v google-pprof >/dev/null 2>&1 && have_gp=1
[ $have_gp = 1 ] || echo "# google-pprof unavailable: compared with the heap.pprof header only"
export HOME=$TESTTMP GOCACHE=$TESTTMP/gocache GOFLAGS=-mod=mod GOTOOLCHAIN=local

types=(inuse_objects inuse_space alloc_objects alloc_space)
# go_total FILE TYPE: the total go tool pprof reports
go_total() {
  go tool pprof -top -unit=B -sample_index="$2" "$1" 2>/dev/null |
    sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)B\{0,1\} total.*/\1/p' | head -1
}
# gp_total FILE TYPE: the total google-pprof reports
gp_total() {
  google-pprof --text --show_bytes --"$2" "$1" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) .*/\1/p' | head -1
}

for f in "$CORPUS"/hprof/* "$CORPUS"/hprof-txt/* "$CORPUS"/bmd/* "$CORPUS"/pprof-heap/* "$ROOT"/tests/fixtures/*.oemp; do
  b=$(basename "$f")
  hf_mount "$f" 2>/dev/null || continue   # an oracle text file, not a dump
  n=0
  for S in "$MNT"/snapshots/*; do
    [ -e "$S/heap.pprof" ] || continue
    n=$((n + 1)); [ $n -le 3 ] || break
    s=$(basename "$S")
    check "$b snapshot $s: heap.pb.gz beside heap.pprof" test -s "$S/heap.pb.gz"
    cp "$S/heap.pb.gz" "$TESTTMP/h.pb.gz"; cp "$S/heap.pprof" "$TESTTMP/h.pprof"
    check "$b snapshot $s: heap.pb.gz reads the same twice" cmp "$TESTTMP/h.pb.gz" "$S/heap.pb.gz"
    kind=$(sed -n 's/^heap profile:.*@ *//p' "$TESTTMP/h.pprof")
    lines=$(grep -c '@ 0x' "$TESTTMP/h.pprof")
    got="" want="" orig=""
    for t in "${types[@]}"; do
      got+="$(go_total "$TESTTMP/h.pb.gz" $t) "
      if [ $have_gp = 1 ]; then
        want+="$(gp_total "$TESTTMP/h.pprof" $t) "
      fi
    done
    case "$kind" in
      heap_v2/*|heapz_v2/*)
        # go tool pprof reads only the in-use types from such a file
        orig="$(go_total "$f" inuse_objects) $(go_total "$f" inuse_space)"
        check_eq "$b snapshot $s: go tool pprof in-use totals of heap.pb.gz are those of the original" "$orig" "$(echo $got | cut -d' ' -f1-2)"
        if [ $have_gp = 1 ]; then
          check "$b snapshot $s: google-pprof totals of heap.pprof within $lines of heap.pb.gz's ($want / $got)" \
            python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); n=int(sys.argv[3]); sys.exit(not (len(a)==4 and len(b)==4 and all(abs(int(x)-int(y))<=n for x,y in zip(a,b))))' "$want" "$got" "$lines"
        fi ;;
      *)
        if [ $have_gp = 1 ]; then
          check_eq "$b snapshot $s: go tool pprof on heap.pb.gz = google-pprof on heap.pprof (totals)" "$want" "$got"
        else
          read -r io ib ao ab <<<"$(sed -n 's/^heap profile: *\([0-9]*\): *\([0-9]*\) *\[ *\([0-9]*\): *\([0-9]*\)\].*/\1 \2 \3 \4/p' "$TESTTMP/h.pprof")"
          check_eq "$b snapshot $s: go tool pprof totals = heap.pprof header" "$io $ib $ao $ab " "$got"
        fi ;;
    esac
  done
  hf_umount
done
