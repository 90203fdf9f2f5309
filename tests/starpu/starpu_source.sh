#!/bin/bash
# Fetches and unpacks Debian 12's StarPU 1.3 source package into DIR (once), adding a deb-src
# entry for bookworm if the machine has none, and prints the source folder. Shared by the
# builds of StarPU with FxT (build_starpu_fxt.sh) and in SimGrid mode (build_starpu_simgrid.sh).
# Needs root for apt-get the first time.
#
# usage: tests/starpu/starpu_source.sh DIR
set -euo pipefail

dir=$(realpath -m "$1")
sources=/etc/apt/sources.list.d/tilelens-deb-src.sources
mkdir -p "$dir"
cd "$dir"
if ! ls -d starpu-1.3*/ >/dev/null 2>&1; then
  if [ ! -f "$sources" ]; then
    cat > "$sources" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -qq >&2
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpkg-dev >&2
  apt-get source -qq starpu >&2
fi
echo "$dir/$(ls -d starpu-1.3*/ | head -n 1)"
