#!/usr/bin/env bash
# heapfs installed the way Debian users run a FUSE file system:
#   - make install DESTDIR=... installs exactly the binary, heapfs(1),
#     heapfs-tree(7), README
#     and the contrib examples; PREFIX= changes the paths the page and the
#     systemd unit name; make uninstall leaves no file behind;
#   - the installed binary mounts a corpus dump; man finds the installed pages;
#   - contrib/systemd/heapfs@.service passes systemd-analyze verify (where
#     systemd-analyze exists) and its ExecStart returns once the mount is live
#     (Type=forking), and SIGTERM unmounts;
#   - as root, with mount.fuse3: mount.fuse3 finds heapfs on PATH; mount(8)
#     clears PATH, so in a private mount namespace the installed bin directory
#     is bind-mounted on /usr/local/bin, where the helper's shell looks, and
#     `mount -t fuse.heapfs`, fstab lines (mount -T ALTFSTAB MOUNTPOINT, and
#     /etc/fstab replaced by a bind mount inside the namespace only) and
#     umount work.  The machine's /etc/fstab and /usr/local/bin are never
#     touched.
source "$(dirname "$0")/lib.sh"
chmod 755 "$TESTTMP" # the user-mount check runs as nobody

MAKEARGS=(-s -C "$ROOT")
[ "${B:-}" = build/san ] && MAKEARGS+=(SANITIZE=1)
DUMP=$TESTTMP/app.hprof
cp "$CORPUS/hprof/slurp_hprof-64.bin" "$DUMP" && chmod 644 "$DUMP"

files_in() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }

# ---- make install / uninstall --------------------------------------------------
DEST=$TESTTMP/dest
mkdir "$DEST"
before=$(files_in "$DEST")
check "make install DESTDIR=... exits 0" make "${MAKEARGS[@]}" install DESTDIR="$DEST"
want="usr/local/bin/heapfs
usr/local/share/doc/heapfs/README.md
usr/local/share/doc/heapfs/contrib/ganesha-heapfs.conf
usr/local/share/doc/heapfs/contrib/nfs.md
usr/local/share/doc/heapfs/contrib/systemd/heapfs@.service
usr/local/share/man/man1/heapfs.1
usr/local/share/man/man7/heapfs-tree.7"
check_eq "installed files (PREFIX /usr/local)" "$want" "$(files_in "$DEST")"
BIN=$DEST/usr/local/bin/heapfs
MAN=$DEST/usr/local/share/man
UNIT=$DEST/usr/local/share/doc/heapfs/contrib/systemd/heapfs@.service
check_eq "modes: binary 755, pages 644, unit 644" "755 644 644 644" \
  "$(stat -c %a "$BIN" "$MAN/man1/heapfs.1" "$MAN/man7/heapfs-tree.7" "$UNIT" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check "the installed binary runs (--version)" bash -c "'$BIN' --version | grep -q '^heapfs '"
check "the installed binary is not the build's symlink" test ! -L "$BIN"
check "the installed page is docs/heapfs.1 (default PREFIX)" cmp -s "$MAN/man1/heapfs.1" "$ROOT/docs/heapfs.1"
if command -v man >/dev/null; then
  check_eq "man finds the installed page" "$MAN/man1/heapfs.1" "$(man -M "$MAN" -w heapfs 2>/dev/null)"
  check_eq "man finds the page of the tree" "$MAN/man7/heapfs-tree.7" \
    "$(man -M "$MAN" -w heapfs-tree 2>/dev/null)"
fi

if HEAPFS=$BIN hf_mount "$DUMP"; then
  echo "ok - the installed binary mounts a corpus dump"
  check "... and its README reads" grep -q 'mounted read-only' "$MNT/README"
  check "... and its histogram reads" grep -q 'int\[\]' "$MNT/latest/histogram"
  hf_umount
else
  echo "not ok - the installed binary mounts a corpus dump"
fi

DEST2=$TESTTMP/dest-usr
check "make install PREFIX=/usr DESTDIR=... exits 0" make "${MAKEARGS[@]}" install PREFIX=/usr DESTDIR="$DEST2"
check "PREFIX=/usr: binary in usr/bin" test -x "$DEST2/usr/bin/heapfs"
check "PREFIX=/usr: the unit runs /usr/bin/heapfs" \
  grep -qx 'ExecStart=/usr/bin/heapfs .*' "$DEST2/usr/share/doc/heapfs/contrib/systemd/heapfs@.service"
check "PREFIX=/usr: the page names /usr/share/doc/heapfs" grep -q '^\.I /usr/share/doc/heapfs/$' "$DEST2/usr/share/man/man1/heapfs.1"
check "PREFIX=/usr: no /usr/local/bin/heapfs or /usr/local/share left" \
  bash -c "! grep -rqE '/usr/local/(bin/heapfs|share)' '$DEST2'"
check "make uninstall PREFIX=/usr exits 0" make "${MAKEARGS[@]}" uninstall PREFIX=/usr DESTDIR="$DEST2"
check_eq "PREFIX=/usr: no file left after uninstall" "" "$(files_in "$DEST2")"

# ---- the systemd unit ------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
  mkdir "$TESTTMP/units"
  # The installed unit, run against the staged binary; MANPATH lets the
  # Documentation=man:heapfs(1) check find the staged page.
  sed "s|/usr/local/bin/heapfs|$BIN|" "$UNIT" >"$TESTTMP/units/heapfs@.service"
  inst=$(systemd-escape --path "$DUMP")
  cp "$TESTTMP/units/heapfs@.service" "$TESTTMP/units/heapfs@$inst.service"
  out=$(MANPATH=$MAN systemd-analyze verify "$TESTTMP/units/heapfs@.service" "$TESTTMP/units/heapfs@$inst.service" 2>&1); rc=$?
  if [ "$rc" -eq 0 ] && [ -z "$out" ]; then echo "ok - systemd-analyze verify heapfs@.service (and instance $inst)"
  else echo "not ok - systemd-analyze verify heapfs@.service (exit $rc)"; printf '#   %s\n' "$out"; fi
else
  echo "ok - systemd-analyze verify heapfs@.service # SKIP no systemd-analyze (systemd not installed)"
fi
check "the unit mounts on /run/heapfs/%i by default" grep -qx 'Environment=MOUNTPOINT=/run/heapfs/%i' "$UNIT"
check "the unit is Type=forking" grep -qx 'Type=forking' "$UNIT"
# Its ExecStart by hand, as systemd would run it: %f the dump, the
# environment's options, a mount point of our own (as a drop-in may set).
line=$(sed -n 's/^ExecStart=//p' "$UNIT")
opts=$(sed -n 's/^Environment=HEAPFS_OPTIONS=//p' "$UNIT")
UMNT=$TESTTMP/unit-mnt
mkdir "$UMNT"
line=${line//\$HEAPFS_OPTIONS/$opts}
line=${line//\"%f\"/$DUMP}
line=${line//\$\{MOUNTPOINT\}/$UMNT}
line=${line//\/usr\/local\/bin\/heapfs/$BIN}
read -ra cmd <<<"$line"
echo "# unit's ExecStart, expanded: ${cmd[*]}"
"${cmd[@]}" >"$TESTTMP/unit.log" 2>&1; rc=$?
check_eq "ExecStart exits 0" 0 "$rc"
live=no; mountpoint -q "$UMNT" && live=yes
check_eq "the mount is live as soon as ExecStart returns (Type=forking readiness)" yes "$live"
check "... and serves the dump" grep -q 'mounted read-only' "$UMNT/README"
pid=$(pgrep -f -- "$UMNT" | head -1)
if [ -n "$pid" ]; then
  kill -TERM "$pid"
  for _ in $(seq 1 100); do mountpoint -q "$UMNT" || break; sleep 0.1; done
  check "SIGTERM (systemctl stop) unmounts" bash -c "! mountpoint -q '$UMNT'"
else
  echo "not ok - SIGTERM (systemctl stop) unmounts (no daemon process found)"
fi
mountpoint -q "$UMNT" && fusermount3 -uz "$UMNT"

check "make uninstall DESTDIR=... exits 0" make "${MAKEARGS[@]}" uninstall DESTDIR="$DEST"
check_eq "no file left after uninstall (files before install: none)" "$before" "$(files_in "$DEST")"
check "share/doc/heapfs is gone after uninstall" test ! -e "$DEST/usr/local/share/doc/heapfs"
check "make install again (for the mount checks)" make "${MAKEARGS[@]}" install DESTDIR="$DEST"

# ---- mount -t fuse.heapfs and /etc/fstab, as root --------------------------------
skip=
[ "$(id -u)" -eq 0 ] || skip="not root"
[ -z "$skip" ] && ! command -v mount.fuse3 >/dev/null && ! [ -x /sbin/mount.fuse3 ] && skip="mount.fuse3 missing (Debian fuse3)"
if [ -n "$skip" ]; then
  for t in "mount.fuse3 finds heapfs on PATH" "mount -t fuse.heapfs" "fstab line (mount -T)" \
           "fstab line (/etc/fstab)" "mount -t fuse.heapfs without ro is refused"; do
    echo "ok - $t # SKIP $skip"
  done
  exit 0
fi
MOPTS=ro,allow_other,cache_size=64M

# mount.fuse3 itself, as mount(8) would call it, with heapfs first on PATH.
M0=$TESTTMP/m0
mkdir "$M0"
PATH=$DEST/usr/local/bin:$PATH mount.fuse3 "$DUMP" "$M0" -t fuse.heapfs -o "$MOPTS" >"$TESTTMP/m0.log" 2>&1; rc=$?
check_eq "mount.fuse3 finds heapfs on PATH and mounts (exit 0)" 0 "$rc"
if mountpoint -q "$M0"; then
  pid=$(pgrep -f -- "$M0" | head -1)
  argv=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | sed 's/ $//')
  echo "# mount.fuse3 ran: $argv"
  check_eq "mount.fuse3 runs: heapfs DUMP MOUNTPOINT -o OPTIONS,dev,suid" \
    "heapfs $DUMP $M0 -o $MOPTS,dev,suid" "$argv"
  check_eq "fstype fuse.heapfs, source the dump" "fuse.heapfs $DUMP" "$(findmnt -n -o FSTYPE,SOURCE "$M0")"
  check "mounted ro,nodev,nosuid,allow_other" bash -c \
    "findmnt -n -o OPTIONS '$M0' | tr , '\n' | sort | grep -cxE 'ro|nodev|nosuid|allow_other' | grep -qx 4"
  umount "$M0"
else
  cat "$TESTTMP/m0.log" | sed 's/^/#   /'
fi

# The rest through mount(8), in a private mount namespace.
in_namespace() {
  local bin=$1 dump=$2 dir=$3 mopts=$4 m
  mount --bind "$bin" /usr/local/bin || { echo "not ok - bind the installed bin on /usr/local/bin"; return; }
  trap 'for m in "$dir"/n*; do mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }; done' EXIT
  daemon_gone() { ! pgrep -f -- "$1" >/dev/null; }
  wait_gone() { local i; for i in $(seq 1 50); do daemon_gone "$1" && return 0; sleep 0.1; done; return 1; }

  m=$dir/n1; mkdir "$m"
  echo "# mount -t fuse.heapfs -o $mopts $dump $m"
  if mount -t fuse.heapfs -o "$mopts" "$dump" "$m"; then
    echo "ok - mount -t fuse.heapfs -o $mopts DUMP MOUNTPOINT"
    check_eq "mount -t: fstype and options" "fuse.heapfs ro allow_other" \
      "$(findmnt -n -o FSTYPE "$m") $(findmnt -n -o OPTIONS "$m" | tr , '\n' | grep -xE 'ro|allow_other' | tr '\n' ' ' | sed 's/ $//')"
    check "mount -t: README reads" grep -q 'mounted read-only' "$m/README"
    check "mount -t: umount MOUNTPOINT" umount "$m"
    check "mount -t: the daemon exits after umount" wait_gone "$m"
  else
    echo "not ok - mount -t fuse.heapfs -o $mopts DUMP MOUNTPOINT"
  fi

  m=$dir/n2; mkdir "$m"
  local line="$dump $m fuse.heapfs noauto,user,$mopts 0 0"
  echo "$line" >"$dir/fstab"
  echo "# fstab line: $line"
  if mount -T "$dir/fstab" "$m"; then
    echo "ok - fstab line: mount -T ALTFSTAB MOUNTPOINT"
    check "fstab (-T): README reads" grep -q 'mounted read-only' "$m/README"
    check "fstab (-T): umount MOUNTPOINT" umount "$m"
    check "fstab (-T): the daemon exits after umount" wait_gone "$m"
  else
    echo "not ok - fstab line: mount -T ALTFSTAB MOUNTPOINT"
  fi

  # /etc/fstab itself, replaced in this namespace only.
  mount --bind "$dir/fstab" /etc/fstab
  if mount "$m"; then
    echo "ok - fstab line in /etc/fstab: mount MOUNTPOINT"
    check "fstab: findmnt --fstab knows the line" findmnt --fstab -n "$m"
    check "fstab: umount MOUNTPOINT" umount "$m"
  else
    echo "not ok - fstab line in /etc/fstab: mount MOUNTPOINT"
  fi

  # A user mount (the fstab line's `user`), as in fuse(8): needs /dev/fuse
  # usable by the user, which some machines (containers) do not allow.
  chown nobody "$m"
  if runuser -u nobody -- test -r /dev/fuse -a -w /dev/fuse; then
    if runuser -u nobody -- mount "$m"; then
      echo "ok - fstab line with user: nobody runs mount MOUNTPOINT"
      check "user mount: nobody reads README" runuser -u nobody -- grep -q 'mounted read-only' "$m/README"
      runuser -u nobody -- umount "$m" 2>/dev/null || runuser -u nobody -- fusermount3 -u "$m"
      check "user mount: nobody unmounts" bash -c "! mountpoint -q '$m'"
    else
      echo "not ok - fstab line with user: nobody runs mount MOUNTPOINT"
    fi
  else
    echo "ok - fstab line with user: nobody runs mount MOUNTPOINT # SKIP /dev/fuse is $(stat -c %a /dev/fuse): not usable by nobody here"
  fi

  m=$dir/n3; mkdir "$m"
  local out
  out=$(mount -t fuse.heapfs "$dump" "$m" 2>&1)
  check "mount -t fuse.heapfs without ro is refused" bash -c "! mountpoint -q '$m'"
  check "... saying to mount with -o ro" grep -q 'mount with -o ro' <<<"$out"

  # Installed elsewhere: the program named in the source field (fuse(8)).
  m=$dir/n4; mkdir "$m"
  if mount -t fuse -o ro "$bin/heapfs#$dump" "$m" 2>/dev/null; then
    echo "ok - type fuse with PROGRAM#DUMP as source mounts"
    check "type fuse: umount MOUNTPOINT" umount "$m"
    check "type fuse: the daemon exits after umount" wait_gone "$m"
  else
    echo "not ok - type fuse with PROGRAM#DUMP as source mounts"
  fi
}
export -f in_namespace check check_eq
unshare -m --propagation private bash -c 'in_namespace "$@"' _ \
  "$DEST/usr/local/bin" "$DUMP" "$TESTTMP" "$MOPTS"
# Every daemon this test started ends after its umount; umount returns
# before the daemon has exited, so give them time, then kill what is left
# (a kill can race with an exit, so its status does not count).
daemons_gone() {
  local i
  for i in $(seq 1 100); do pgrep -f -- "$TESTTMP/" >/dev/null || return 0; sleep 0.1; done
  return 1
}
check "every daemon this test started has exited" daemons_gone
for pid in $(pgrep -f -- "$TESTTMP/"); do kill "$pid" 2>/dev/null || true; done
