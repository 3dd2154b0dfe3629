#!/usr/bin/env bash
# heapfs(1), docs/heapfs.1, is kept true (t_docs.sh checks that groff and
# man read it, and docs/heapfs-tree.7, without a warning):
#   - it has the usual sections, in order, and heapfs-tree(7) the tree's;
#   - the options under OPTIONS are exactly the ones `heapfs --help` lists
#     (both ways), and its list of options accepted and ignored is --help's;
#   - the exit statuses it states for --check and for a refused mount hold.
source "$(dirname "$0")/lib.sh"
PAGE=$ROOT/docs/heapfs.1

check "docs/heapfs.1 exists" test -s "$PAGE"
command -v groff >/dev/null || { echo "not ok - groff is installed (bash contrib/install-deps.sh)"; exit 0; }

# ---- sections -------------------------------------------------------------------
sections() { sed -n 's/^\.SH "\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'; }
check_eq "sections, in order" \
  "NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES ENVIRONMENT FILES EXIT STATUS SEE ALSO" "$(sections "$PAGE")"
check_eq "heapfs-tree(7): sections, in order" "NAME DESCRIPTION THE TREE FORMATS SEE ALSO" \
  "$(sections "$ROOT/docs/heapfs-tree.7")"

page_version=$(sed -n 's/^\.TH .*"heapfs \([^"]*\)".*/\1/p' "$PAGE")
check_eq "the page's version is heapfs --version's" "$("$HEAPFS" --version | sed -n 's/^heapfs \([^ ]*\).*/\1/p')" "$page_version"
check_eq "heapfs-tree(7)'s version is heapfs(1)'s" "$page_version" \
  "$(sed -n 's/^\.TH .*"heapfs \([^"]*\)".*/\1/p' "$ROOT/docs/heapfs-tree.7")"

# ---- options: --help against the page -------------------------------------------
# One option per line, "-f", "--check", "-o cache_size": the leading option
# words of a line, up to its description; "=VALUE" dropped.
options_of() {
  perl -ne 's/^\s+//; while (s/^(-o\s+\w+|--?[A-Za-z][-A-Za-z]*)(=\S*)?[\s,]*//) { ($t = $1) =~ s/\s+/ /; print "$t\n" }'
}
help=$("$HEAPFS" --help 2>&1)
help_opts=$(grep -E '^ +-' <<<"$help" | options_of | sort -u)
# The page: the tag line after each .TP under OPTIONS, roff taken out.
page_opts=$(awk '/^\.SH /{ in_opts = ($2 == "OPTIONS") } in_opts && tp { print; tp = 0 } in_opts && /^\.TP/ { tp = 1 }' "$PAGE" |
  sed -E 's/^\.[A-Z]+ +//; s/\\f[BIRP]//g; s/\\-/-/g; s/"//g' | options_of | sort -u)
check "--help lists options (parsed: $(wc -l <<<"$help_opts"))" test "$(wc -l <<<"$help_opts")" -ge 15
missing=$(comm -23 <(echo "$help_opts") <(echo "$page_opts") | tr '\n' ' ')
extra=$(comm -13 <(echo "$help_opts") <(echo "$page_opts") | tr '\n' ' ')
check_eq "every option of --help is documented under OPTIONS" "" "$missing"
check_eq "every option under OPTIONS is in --help" "" "$extra"

# The options accepted and ignored: --help's paragraph and the page's.
ignored_words() { sed 's/^[^:]*://; s/[,.]/ /g' | tr -s ' \n' '\n\n' | sed '/^$/d' | sort; }
help_ign=$(sed -n '/^Accepted and ignored/,/^$/p' <<<"$help" | tr '\n' ' ' | ignored_words)
page_ign=$(groff -man -Tascii -rLL=1000n -P-c -P-b -P-u -P-o "$PAGE" 2>/dev/null |
  grep -m1 'Accepted and ignored' | ignored_words)
check "--help lists options accepted and ignored" grep -qx noauto <<<"$help_ign"
check_eq "the page's options accepted and ignored are --help's" "$(echo $help_ign)" "$(echo $page_ign)"

# ---- what EXIT STATUS says ------------------------------------------------------
f=$CORPUS/hprof/slurp_hprof-64.bin
"$HEAPFS" --check "$f" >/dev/null 2>&1; check_eq "--check on a dump exits 0" 0 "$?"
head -c 4096 /dev/urandom >"$TESTTMP/garbage.bin"
"$HEAPFS" --check "$TESTTMP/garbage.bin" >/dev/null 2>&1; check_eq "--check on a file it cannot decode exits 1" 1 "$?"
"$HEAPFS" --check >/dev/null 2>&1; check_eq "--check with no dump exits 2" 2 "$?"
"$HEAPFS" --check -o allow_other "$f" >/dev/null 2>&1; check_eq "--check with a mount option exits 2" 2 "$?"
mkdir "$TESTTMP/m"
out=$("$HEAPFS" "$f" "$TESTTMP/m" -o rw 2>&1); rc=$?
check_eq "-o rw exits 2" 2 "$rc"
check "-o rw says to mount with -o ro" grep -q 'mount with -o ro' <<<"$out"
check "-o rw leaves nothing mounted" bash -c "! mountpoint -q '$TESTTMP/m'"
"$HEAPFS" "$f" "$TESTTMP/m" -o no_such_option >/dev/null 2>&1; rc=$?
check_eq "an option libfuse does not know exits 2" 2 "$rc"
mountpoint -q "$TESTTMP/m" && fusermount3 -u "$TESTTMP/m"
"$HEAPFS" --help >/dev/null 2>&1; check_eq "--help exits 0" 0 "$?"
