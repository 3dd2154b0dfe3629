#!/usr/bin/env bash
# Installs heapfs's build and test dependencies from Debian's packages.
# Run as root (CI and these dev machines are); a no-op when all are present.
set -euo pipefail
pkgs=(build-essential pkg-config fuse3 libfuse3-dev libglib2.0-dev libcmocka-dev
      libdw-dev libelf-dev openjdk-17-jdk-headless google-perftools
      libgoogle-perftools-dev visualvm python3 clang libclang-rt-14-dev iproute2 util-linux
      groff-base man-db golang-go libprotobuf-c-dev protobuf-c-compiler zlib1g-dev sqlite3
      libxml2-utils chromium libpng-dev nodejs)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# npm: Debian's package, unless the nodejs installed brings its own
command -v npm >/dev/null 2>&1 || { export DEBIAN_FRONTEND=noninteractive; apt-get install -y -qq --no-install-recommends npm; }
# The oracle of tests/mount/t_v8*.sh: Chrome DevTools' own heap snapshot code
# as the npm package heap-snapshot-toolkit ships it (no dependencies),
# installed here because tests may not use the network.
oracle=/usr/local/lib/heapfs-oracle
[ -e "$oracle/node_modules/heap-snapshot-toolkit/package.json" ] ||
  npm install --prefix "$oracle" --no-audit --no-fund --ignore-scripts --loglevel=error \
    heap-snapshot-toolkit@1.1.3
[ -e /dev/fuse ] || { echo "install-deps: /dev/fuse is missing: FUSE mounts cannot work here" >&2; exit 1; }
