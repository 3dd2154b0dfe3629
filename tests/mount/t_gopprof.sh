#!/usr/bin/env bash
# t_gopprof.sh - Go heap profiles (pprof's profile.proto) mounted.
#
# tests/programs/go/heapprog.go is built here (go build, standard library
# only, offline, in a temporary GOPATH and GOCACHE) and run twice; each run
# writes its heap profile with runtime.MemProfileRate = 1 while keepBig
# holds 8 x 1 MiB and keepSmall 1000 x 1000 B; the second run also keeps
# 50 x 2000 B in keepMore, so growth between the two is never empty.  The oracle is go tool
# pprof on the original files: on the mounted heap.pb.gz it reports the same
# totals for every sample type, google-pprof on heap.pprof reports them too,
# and the function names appear in sites and traces/.  Two files mount as
# snapshots 1 and 2 with one trace number per stack across them.
. "$(dirname "$0")/lib.sh"

if ! command -v go >/dev/null 2>&1; then
  echo "ok - Go heap profiles # SKIP go (package golang-go) is not installed"
  exit 0
fi
export HOME=$TESTTMP GOCACHE=$TESTTMP/gocache GOPATH=$TESTTMP/gopath GO111MODULE=off GOFLAGS= GOPROXY=off
mkdir -p "$TESTTMP/prog"
cp "$ROOT/tests/programs/go/heapprog.go" "$TESTTMP/prog/"
if ! (cd "$TESTTMP/prog" && go build -o heapprog heapprog.go) >"$TESTTMP/build.log" 2>&1; then
  sed 's/^/# /' "$TESTTMP/build.log" | tail -5
  echo "not ok - go build tests/programs/go/heapprog.go"
  exit 1
fi
A=$TESTTMP/a.pb.gz B=$TESTTMP/b.pb.gz TAB=$(printf '\t')
check "heapprog writes its heap profile (run 1)" "$TESTTMP/prog/heapprog" "$A"
check "heapprog writes its heap profile (run 2)" "$TESTTMP/prog/heapprog" "$B" 50

types=(inuse_objects inuse_space alloc_objects alloc_space)
go_totals() {
  local t
  for t in "${types[@]}"; do
    go tool pprof -top -unit=B -sample_index=$t "$1" 2>/dev/null |
      sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)B\{0,1\} total.*/\1/p' | head -1
  done | tr '\n' ' '
}

go_flat() { # FILE SAMPLE_TYPE FUNCTION: go tool pprof's flat value, in units
  go tool pprof -top -unit=B -nodecount=100000 -nodefraction=0 -sample_index="$2" "$1" 2>/dev/null |
    awk -v f="$3" '$NF == f { v = $1; sub(/B$/, "", v); print v; exit }'
}

if hf_mount "$A"; then
  S=$MNT/snapshots/1
  check "info names the sample types" grep -q 'inuse_space/bytes' "$MNT/info"
  check "info gives period type and period" grep -q '^period type: space/bytes' "$MNT/info"
  check "snapshot has info, sites, heap.pprof, stacks.folded, heap.pb.gz" \
    test -s "$S/info" -a -s "$S/sites" -a -s "$S/heap.pprof" -a -s "$S/stacks.folded" -a -s "$S/heap.pb.gz"
  # 8 x 1 MiB; with MemProfileRate = 1 the runtime now and then records one
  # small allocation of its own (96 bytes seen) under keepBig's stack too.
  big_ok() { # OBJECTS BYTES: keepBig's 8 MiB, give or take one small object
    [ "$1" -ge 8 ] && [ "$1" -le 9 ] && [ "$2" -ge 8388608 ] && [ "$2" -le 8392704 ]
  }
  # sites: trace inuse_objects inuse_space alloc_objects alloc_space frame
  check_eq "sites: the columns of every format's sites" \
    "# trace${TAB}inuse_objects${TAB}inuse_space${TAB}alloc_objects${TAB}alloc_space${TAB}frame" "$(head -1 "$S/sites")"
  check "sites: every row has the header's columns, plain integers but the frame (docs/views.md)" \
    awk -F'\t' 'NR == 1 { n = NF; next } NF != n { exit 1 } { for (i = 1; i < NF; i++) if ($i !~ /^-?[0-9]+$/) exit 1 }' "$S/sites"
  # summed over keepBig's rows: the runtime's object may have a stack of
  # its own, and may be freed by the time of the profile (alloc > inuse)
  big=$(awk -F'\t' 'index($6, "main.keepBig (") == 1 { io += $2; ib += $3; ao += $4; ab += $5 }
                    END { print io + 0, ib + 0, ao + 0, ab + 0 }' "$S/sites")
  check "sites: keepBig with 8 objects and 8 MiB in use and allocated ($big)" \
    bash -c "$(declare -f big_ok); big_ok \$1 \$2 && big_ok \$3 \$4" _ $big
  # keepSmall: 1000 x 1000 B (size class 1024), give or take one small
  # object of the runtime's (CI once saw one under keepSmall's stack), and
  # exactly what go tool pprof counts for keepSmall in the original
  small_ok() { # OBJECTS BYTES
    [ "$1" -ge 1000 ] && [ "$1" -le 1001 ] && [ "$2" -ge 1024000 ] && [ "$2" -le 1028096 ]
  }
  small=$(awk -F'\t' 'index($6, "main.keepSmall (") == 1 { o += $2; b += $3 } END { print o + 0, b + 0 }' "$S/sites")
  check "sites: keepSmall with 1000 x 1000 B in use ($small)" \
    bash -c "$(declare -f small_ok); small_ok $small"
  check_eq "sites: keepSmall in use = go tool pprof's flat objects and bytes" \
    "$(go_flat "$A" inuse_objects main.keepSmall) $(go_flat "$A" inuse_space main.keepSmall)" "$small"
  check "traces/: keepBig, leaf first, as function (file:line)" \
    bash -c 'grep -l "^main\.keepBig (.*heapprog\.go:[0-9]*)$" "$1"/traces/* | head -1 | xargs head -1 | grep -q keepBig' _ "$MNT"
  check_eq "heap.pb.gz is the file as given" "$(md5sum <"$A")" "$(md5sum <"$S/heap.pb.gz")"
  cp "$S/heap.pprof" "$TESTTMP/h.pprof"
  orig=$(go_totals "$A")
  check "go tool pprof reads the original (${orig})" test -n "${orig// /}"
  if command -v google-pprof >/dev/null 2>&1; then
    gp=$(for o in inuse_objects inuse_space alloc_objects alloc_space; do
           google-pprof --text --show_bytes --$o "$TESTTMP/h.pprof" 2>/dev/null | sed -n 's/^Total: \([0-9]*\) .*/\1/p'
         done | tr '\n' ' ')
    check_eq "google-pprof totals of heap.pprof = go tool pprof's of the original" "$orig" "$gp"
    check "google-pprof names keepBig" bash -c 'google-pprof --text "$1" 2>/dev/null | grep -q "main.keepBig"' _ "$TESTTMP/h.pprof"
  fi
  check "stacks.folded: keepBig under main.main" \
    bash -c "$(declare -f big_ok); big_ok 8 \$(awk '/main\.main;main\.keepBig [0-9]+$/ { print \$NF }' '$S/stacks.folded')"
  hf_umount
fi

# hf_mount DUMP ARGS... runs heapfs ARGS... DUMP MNT: this mounts A then B
if hf_mount "$B" "$A"; then
  check_eq "two files: snapshots 1 and 2" "1 2" "$(ls "$MNT/snapshots" | tr '\n' ' ' | sed 's/ $//')"
  t1=$(awk -F'\t' '$NF ~ /^main\.keepBig \(.*\.go:[0-9]+\)$/ { print $1 }' "$MNT/snapshots/1/sites")
  t2=$(awk -F'\t' '$NF ~ /^main\.keepBig \(.*\.go:[0-9]+\)$/ { print $1 }' "$MNT/snapshots/2/sites")
  check_eq "one trace number for keepBig's stack in both snapshots" "$t1" "$t2"
  cp "$MNT/snapshots/2/heap.pb.gz" "$TESTTMP/s2.pb.gz"
  check_eq "go tool pprof totals: snapshot 2's heap.pb.gz = the second file's" "$(go_totals "$B")" "$(go_totals "$TESTTMP/s2.pb.gz")"
  # growth: in-use objects and bytes by leaf frame, the difference of the sites
  inuse() { # SITES: "frame objects bytes" from the inuse_* columns, summed by frame
    awk -F'\t' 'NR == 1 { for (i = 2; i <= NF; i++) { if ($i == "inuse_objects") o = i; if ($i == "inuse_space") b = i }; next }
         { n[$NF] += $o; s[$NF] += $b } END { for (f in n) print f "\t" n[f] "\t" s[f] }' "$1" |
      LC_ALL=C sort -t "$TAB" -k1,1
  }
  LC_ALL=C join -t "$TAB" -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 <(inuse "$MNT/snapshots/1/sites") <(inuse "$MNT/snapshots/2/sites") |
    awk -F'\t' '$2 != $4 || $3 != $5 { printf "%s %d %d\n", $1, $4 - $2, $5 - $3 }' | LC_ALL=C sort >"$TESTTMP/want.growth"
  growth_rows "$MNT/snapshots/2/growth" >"$TESTTMP/got.growth"
  check "growth: in-use objects and bytes by leaf frame = the difference of the two sites files" \
    diff "$TESTTMP/want.growth" "$TESTTMP/got.growth"
  check "growth names every row by its frame, function (file:line), not trace=N" \
    awk '!/^[^ ]+ \(.*:[0-9]+\) -?[0-9]+ -?[0-9]+$/ { exit 1 } END { exit NR == 0 }' "$TESTTMP/got.growth"
  # keepMore's 50 x 2000 B (size class 2048), give or take a runtime object
  more=$(awk '/^main\.keepMore \(/ { print $(NF-1), $NF }' "$TESTTMP/got.growth")
  check "growth: keepMore +50 objects, +102400 B in the second run ($more)" \
    bash -c '[ "$1" -ge 50 ] && [ "$1" -le 51 ] && [ "$2" -ge 102400 ] && [ "$2" -le 106496 ]' _ $more
  hf_umount
fi

# the same profile not gzipped, and heapfs's own heap.pb.gz, mount too
zcat "$A" >"$TESTTMP/raw.pb"
if hf_mount "$TESTTMP/raw.pb"; then
  check "an ungzipped profile mounts; its heap.pb.gz is gzipped" bash -c '[ "$(head -c2 "$1" | od -An -tx1 | tr -d " ")" = 1f8b ]' _ "$MNT/snapshots/1/heap.pb.gz"
  cp "$MNT/snapshots/1/heap.pb.gz" "$TESTTMP/regz.pb.gz"
  check_eq "go tool pprof totals of the re-gzipped profile" "$(go_totals "$A")" "$(go_totals "$TESTTMP/regz.pb.gz")"
  hf_umount
fi

# bad input: a clear error, nothing mounted
head -c 700 "$A" >"$TESTTMP/cut.pb.gz"
out=$("$HEAPFS" --check "$TESTTMP/cut.pb.gz" 2>&1); rc=$?
check_eq "a cut gzip is refused with a clear error (exit 1)" "1 yes" "$rc $(echo "$out" | grep -q 'ends early' && echo yes)"
python3 -c 'import gzip,sys; raw=open(sys.argv[1],"rb").read(); open(sys.argv[2],"wb").write(gzip.compress(raw[:40]+b"\0"*(8<<20)))' "$TESTTMP/raw.pb" "$TESTTMP/bad.pb.gz"
out=$("$HEAPFS" --check "$TESTTMP/bad.pb.gz" 2>&1); rc=$?
check_eq "a profile head followed by garbage is refused (exit 1)" "1" "$rc"
