#!/usr/bin/env bash
# t_access.sh - no view is readable by anyone who could not read the dump.
#
# heapfs runs as root here; a second user (nobody, or a user heapfs-test
# made for the test and removed after) tries to get at the mounted tree:
#   - dump 0600 root:root, mounted with -o allow_other: the second user can
#     neither read any file (cat: EACCES), nor list or enter any directory,
#     nor find a secret with grep -r; root can;
#   - the mount carries default_permissions whenever allow_other is given
#     (the kernel checks the modes heapfs derives from the dump's);
#   - dump 0644 without allow_other: still nothing for the second user
#     (FUSE lets only the mounting user in);
#   - dump 0644 with allow_other, on a fresh mount: the second user reads,
#     lists and greps everything; modes are 0444 files, 0555 dirs;
#   - dump 0640 with the second user's group: group read is honoured;
#   - the dump chmod'ed 0600 while mounted: the second user can no longer
#     open a view or list a directory (heapfs checks the dump's current
#     permissions at each open), root still can; chmod 0644 again reopens.
source "$(dirname "$0")/lib.sh"

DUMP=$CORPUS/hprof/slurp_hprof-64.bin
[ -f "$DUMP" ] || { echo "not ok - $DUMP exists"; exit 1; }
command -v runuser >/dev/null || { echo "not ok - runuser is installed (util-linux)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "ok - access tests # SKIP not root"; exit 0; }

# ---- the second user ----
OTHER=nobody
CREATED=
if ! id -u "$OTHER" >/dev/null 2>&1; then
  OTHER=heapfs-test
  if ! id -u "$OTHER" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$OTHER" || { echo "not ok - create user $OTHER"; exit 1; }
    CREATED=$OTHER
  fi
fi
[ -n "$CREATED" ] && trap 'hf_cleanup; userdel "$CREATED" 2>/dev/null' EXIT
OGROUP=$(id -gn "$OTHER")
echo "# second user: $OTHER ($(id -u "$OTHER")), group $OGROUP"
as_other() { runuser -u "$OTHER" -- "$@"; }
chmod 755 "$TESTTMP"   # the mount points below must be reachable by path

# mount options of MNT, from /proc/mounts
mount_opts() { awk -v m="$1" '$2 == m {print $4}' /proc/mounts; }

private=$TESTTMP/private.hprof
cp "$DUMP" "$private"; chown root:root "$private"; chmod 0600 "$private"

# ---- 0600 + allow_other: nothing for the other user ----
hf_mount "$private" -o allow_other || { echo "not ok - mount 0600 dump with allow_other"; exit 1; }
opts=$(mount_opts "$MNT")
echo "# mount options: $opts"
check "allow_other is in force" bash -c "echo '$opts' | tr , '\n' | grep -qx allow_other"
check "default_permissions is in force with allow_other" bash -c "echo '$opts' | tr , '\n' | grep -qx default_permissions"
check "root reads info" cat "$MNT/info"
secret=$(grep -a -m1 -o 'java[a-zA-Z.]*' "$MNT/latest/strings" | head -1)
[ -n "$secret" ] || secret=java
check "root finds '$secret' with grep -r" bash -c "grep -rq '$secret' '$MNT/latest/strings'"
check_eq "file mode is the dump's read bits (0400)" 400 "$(stat -c %a "$MNT/info")"
check_eq "directory mode is 0500" 500 "$(stat -c %a "$MNT/latest/classes")"

out=$(as_other cat "$MNT/info" 2>&1)
check "$OTHER cannot read info (EACCES)" bash -c "[[ '$out' == *'Permission denied'* ]]"
out=$(as_other ls "$MNT" 2>&1)
check "$OTHER cannot list the root (EACCES)" bash -c "[[ '$out' == *'Permission denied'* ]]"
out=$(as_other ls "$MNT/latest/objects" 2>&1)
check "$OTHER cannot list objects/ (EACCES)" bash -c "[[ '$out' == *'Permission denied'* ]]"
check "$OTHER cannot stat a view" bash -c "! runuser -u '$OTHER' -- stat '$MNT/latest/strings' >/dev/null 2>&1"
check "$OTHER finds nothing with grep -r" bash -c "! runuser -u '$OTHER' -- grep -rq '$secret' '$MNT' 2>/dev/null"
# every file root can see: none readable by the other user
find "$MNT" -maxdepth 5 -type f 2>/dev/null | head -3000 >"$TESTTMP/files"
find "$MNT" -maxdepth 4 -type d 2>/dev/null | head -500 >"$TESTTMP/dirs"
chmod 644 "$TESTTMP/files" "$TESTTMP/dirs"
nfiles=$(wc -l <"$TESTTMP/files")
readable=$(as_other bash -c 'n=0; while read -r f; do head -c1 "$f" >/dev/null 2>&1 && n=$((n+1)); done; echo $n' <"$TESTTMP/files")
check_eq "$OTHER can read none of $nfiles files" 0 "$readable"
listable=$(as_other bash -c 'n=0; while read -r d; do ls "$d" >/dev/null 2>&1 && n=$((n+1)); done; echo $n' <"$TESTTMP/dirs")
check_eq "$OTHER can list none of $(wc -l <"$TESTTMP/dirs") dirs" 0 "$listable"
# the daemon itself, asked directly by inode through open_by_handle_at, is
# out of reach for an unprivileged user (CAP_DAC_READ_SEARCH needed).
hf_umount

# ---- 0644 without allow_other: FUSE lets only the mounter in ----
open=$TESTTMP/open.hprof
cp "$DUMP" "$open"; chmod 0644 "$open"
hf_mount "$open" || { echo "not ok - mount 0644 dump"; exit 1; }
check "without allow_other there is no allow_other option" bash -c "! awk -v m='$MNT' '\$2 == m {print \$4}' /proc/mounts | tr , '\n' | grep -qx allow_other"
out=$(as_other cat "$MNT/info" 2>&1)
check "without allow_other $OTHER cannot read a view of a 0644 dump" bash -c "[[ '$out' == *'Permission denied'* ]]"
hf_umount

# ---- 0644 + allow_other (fresh mount): the other user reads everything ----
hf_mount "$open" -o allow_other || { echo "not ok - mount 0644 dump with allow_other"; exit 1; }
check "default_permissions is in force (0644 dump)" bash -c "awk -v m='$MNT' '\$2 == m {print \$4}' /proc/mounts | tr , '\n' | grep -qx default_permissions"
check_eq "file mode is 0444" 444 "$(stat -c %a "$MNT/info")"
check_eq "directory mode is 0555" 555 "$(stat -c %a "$MNT/latest/objects")"
check "$OTHER reads info" as_other cat "$MNT/info"
check "$OTHER lists objects/" bash -c "runuser -u '$OTHER' -- ls '$MNT/latest/objects' | grep -q 0x"
check "$OTHER finds '$secret' with grep -r" bash -c "runuser -u '$OTHER' -- grep -rq '$secret' '$MNT/latest/strings'"
find "$MNT" -maxdepth 5 -type f 2>/dev/null | head -600 >"$TESTTMP/files"
nfiles=$(wc -l <"$TESTTMP/files")
readable=$(as_other bash -c 'n=0; while read -r f; do head -c1 "$f" >/dev/null 2>&1 && n=$((n+1)); done; echo $n' <"$TESTTMP/files")
check_eq "$OTHER can read all $nfiles files" "$nfiles" "$readable"
hf_umount

# ---- 0640, group of the other user: group read honoured ----
grp=$TESTTMP/group.hprof
cp "$DUMP" "$grp"; chown "root:$OGROUP" "$grp"; chmod 0640 "$grp"
hf_mount "$grp" -o allow_other || { echo "not ok - mount 0640 dump"; exit 1; }
check_eq "file mode is 0440, group $OGROUP" "440 $OGROUP" "$(stat -c '%a %G' "$MNT/info")"
check "$OTHER (group $OGROUP) reads info" as_other cat "$MNT/info"
hf_umount
chown root:root "$grp"
hf_mount "$grp" -o allow_other || { echo "not ok - mount 0640 root:root dump"; exit 1; }
out=$(as_other cat "$MNT/info" 2>&1)
check "0640 root:root: $OTHER cannot read info" bash -c "[[ '$out' == *'Permission denied'* ]]"

# ---- the dump's mode tightened while mounted ----
cp "$DUMP" "$TESTTMP/later.hprof"; chmod 0644 "$TESTTMP/later.hprof"
hf_mount "$TESTTMP/later.hprof" -o allow_other || { echo "not ok - mount for chmod"; exit 1; }
as_other cat "$MNT/info" >/dev/null 2>&1
chmod 0600 "$TESTTMP/later.hprof"
out=$(as_other cat "$MNT/latest/histogram" 2>&1)
check "after chmod 0600 of the dump, $OTHER cannot open a view any more" bash -c "[[ '$out' == *'Permission denied'* ]]"
out=$(as_other ls "$MNT/latest/objects" 2>&1)
check "after chmod 0600 of the dump, $OTHER cannot list a directory any more" bash -c "[[ '$out' == *'Permission denied'* ]]"
check "root still reads after the chmod" cat "$MNT/latest/histogram"
chmod 0644 "$TESTTMP/later.hprof"
check "after chmod 0644 again, $OTHER reads again" as_other cat "$MNT/latest/histogram"
hf_umount
