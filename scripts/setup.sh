#!/usr/bin/env bash
# Installs the Debian 12 packages tilelens builds with (as root, or through sudo).
set -euo pipefail
packages=(cmake ninja-build g++ catch2 nlohmann-json3-dev bc libsqlite3-dev sqlite3 libmetis-dev qt6-base-dev qt6-charts-dev qt6-svg-dev xvfb xauth
          xdotool imagemagick libstarpu-dev starpu-tools pkg-config vite slurm-wlm munge
          libsimgrid-dev libhwloc-dev libltdl-dev libboost-dev build-essential dpkg-dev python3
          pybind11-dev python3-dev python3-pandas python3-pytest python3-matplotlib coinor-libcbc-dev
          stress-ng)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# StarPU 1.3.10 in SimGrid mode, the fidelity tests' oracle, built once from Debian's source
# package and cached in ~/.cache/tilelens (about 2 minutes). Without it those tests skip.
if ! bash "$(dirname "$0")/../tests/starpu/build_starpu_simgrid.sh" >/dev/null 2>/tmp/tilelens-simgrid-build.log; then
  echo "StarPU-SimGrid was not built (see /tmp/tilelens-simgrid-build.log): the fidelity tests will skip"
fi
