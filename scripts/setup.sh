#!/usr/bin/env bash
# Installs the Debian 12 packages tilelens builds with (as root, or through sudo).
set -euo pipefail
packages=(cmake ninja-build g++ catch2 nlohmann-json3-dev bc libsqlite3-dev sqlite3 libmetis-dev qt6-base-dev qt6-charts-dev qt6-svg-dev xvfb xauth
          xdotool imagemagick libstarpu-dev starpu-tools pkg-config vite slurm-wlm munge)
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
