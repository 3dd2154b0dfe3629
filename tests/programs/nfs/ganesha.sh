# shellcheck shell=bash
# ganesha.sh - nfs-ganesha (VFS backend) on loopback, for tests (source it).
#
#   nfs_free_port             prints a free TCP port on 127.0.0.1
#   nfs_start DIR PATH        starts ganesha.nfsd in the foreground (in the
#                             background of the caller), state and log in
#                             DIR, exporting PATH read-only as /export: NFSv4,
#                             and NFSv3 too when NFS_V3=1 (which needs an
#                             rpcbind to register with: see t_nfs.sh)
#   nfs_stop                  stops it by its pid and waits for it
#   nfs_export_drop           removes the export from the running server
#   nfs_export_add [PATH]     adds it again (PATH: export another directory)
#                             Both by SIGHUP after rewriting the configuration:
#                             ganesha re-reads its EXPORT blocks, removing
#                             those that left and adding new ones.
#   NFS_URL NFS_Q             "nfs://127.0.0.1/export", "?version=4&nfsport=N"
#   NFS_URL3 NFS_Q3           the same for NFSv3 (mounted by its path)
#   NFS_EXTRA_CONF            more configuration blocks, e.g.
#                             'LOG { COMPONENTS { FSAL = FULL_DEBUG; } }'
#
# Only 127.0.0.1 is bound, on ports picked free at each start.  The caller
# stops the server in its EXIT trap (nfs_stop), before unmounting what it
# exports.
NFS_PID=
NFS_V3=${NFS_V3:-0}
NFS_EXTRA_CONF=${NFS_EXTRA_CONF:-}

nfs_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# _nfs_conf with|without: the configuration, with or without the EXPORT.
_nfs_conf() {
  local protos=4
  [ "$NFS_V3" = 1 ] && protos="3, 4"
  cat <<EOF
NFS_CORE_PARAM {
  Bind_Addr = 127.0.0.1; Protocols = $protos;
  NFS_Port = $NFS_PORT; MNT_Port = $NFS_MNT_PORT;
  Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = false;
  Plugins_Dir = $NFS_PLUGINS;
}
NFSV4 {
  Graceless = true; RecoveryBackend = fs; RecoveryRoot = $NFS_DIR/recov;
  Only_Numeric_Owners = true;
}
NFS_KRB5 { Active_krb5 = false; }
$NFS_EXTRA_CONF
EOF
  [ "$1" = with ] && cat <<EOF
EXPORT {
  Export_Id = 1; Path = $NFS_EXPORT; Pseudo = /export; Access_Type = RO;
  Squash = No_Root_Squash; SecType = sys; Protocols = $protos; Transports = TCP;
  FSAL { Name = VFS; fsid_type = Major64; }
}
EOF
  return 0
}

_nfs_count() {
  local n
  n=$(grep -c -- "$1" "$NFS_DIR/ganesha.log" 2>/dev/null)
  echo "${n:-0}"
}

# _nfs_wait_log PATTERN N: waits (10 s at most) until PATTERN occurs N
# times in the log; fails at once when the server died.
_nfs_wait_log() {
  local i
  for i in $(seq 100); do
    [ "$(_nfs_count "$1")" -ge "$2" ] && return 0
    kill -0 "$NFS_PID" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

_nfs_log_tail() {
  grep -v -i -E 'dbus|krb|gss' "$NFS_DIR/ganesha.log" | tail -${1:-15} | sed 's/^/#   /'
}

_nfs_urls() {
  NFS_URL="nfs://127.0.0.1/export"
  NFS_Q="?version=4&nfsport=$NFS_PORT"
  NFS_URL3="nfs://127.0.0.1$NFS_EXPORT"
  NFS_Q3="?version=3&nfsport=$NFS_PORT&mountport=$NFS_MNT_PORT"
}

nfs_start() {
  NFS_DIR=$1; NFS_EXPORT=$2
  mkdir -p "$NFS_DIR/recov"
  NFS_PORT=$(nfs_free_port)
  NFS_MNT_PORT=$(nfs_free_port)
  NFS_PLUGINS=$(dirname "$(dpkg -L nfs-ganesha-vfs 2>/dev/null | grep '/libfsalvfs.so$' | head -1)")
  [ -e "$NFS_PLUGINS/libfsalvfs.so" ] || NFS_PLUGINS=/usr/lib/x86_64-linux-gnu/ganesha
  _nfs_conf with >"$NFS_DIR/ganesha.conf"
  _nfs_urls
  local n
  n=$(_nfs_count "NFS SERVER INITIALIZED")
  ganesha.nfsd -F -f "$NFS_DIR/ganesha.conf" -L "$NFS_DIR/ganesha.log" -p "$NFS_DIR/ganesha.pid" &
  NFS_PID=$!
  if ! _nfs_wait_log "NFS SERVER INITIALIZED" $((n + 1)); then
    echo "# ganesha did not start; the end of its log:"
    _nfs_log_tail
    return 1
  fi
}

_nfs_reload() {
  _nfs_conf "$1" >"$NFS_DIR/ganesha.conf"
  local n
  n=$(_nfs_count "Reread exports complete")
  kill -HUP "$NFS_PID"
  _nfs_wait_log "Reread exports complete" $((n + 1)) && return 0
  echo "# ganesha did not reload; the end of its log:"
  _nfs_log_tail
  return 1
}

nfs_export_drop() { _nfs_reload without; }

nfs_export_add() {
  [ $# -gt 0 ] && NFS_EXPORT=$1
  _nfs_urls
  _nfs_reload with
}

nfs_stop() {
  [ -n "$NFS_PID" ] || return 0
  kill "$NFS_PID" 2>/dev/null
  local i
  for i in $(seq 100); do kill -0 "$NFS_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$NFS_PID" 2>/dev/null
  wait "$NFS_PID" 2>/dev/null
  NFS_PID=
}
