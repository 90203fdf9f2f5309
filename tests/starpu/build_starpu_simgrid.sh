#!/bin/bash
# Builds StarPU 1.3.10 in SimGrid mode, the deterministic oracle of the fidelity tests
# (docs/fidelity.md), from Debian 12's source package against Debian's libsimgrid-dev, and
# caches it outside the clone so that every clone and CI run reuses it. StarPU then runs its
# own schedulers and memory manager on a simulated machine: repeated runs agree bit for bit.
# CUDA is left out of the build (1.3.10's detection fails on CUDA 13) but its driver is still
# simulated, so the machine has simulated GPUs. About 3 minutes on 2 cores; needs root for
# apt-get the first time. Prints the install prefix.
#
# usage: tests/starpu/build_starpu_simgrid.sh [PREFIX]
#        (default: $TILELENS_CACHE/starpu-1.3-simgrid, TILELENS_CACHE defaulting to ~/.cache/tilelens)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${TILELENS_CACHE:-$HOME/.cache/tilelens}
prefix=$(realpath -m "${1:-$cache/starpu-1.3-simgrid}")

if [ -x "$prefix/bin/starpu_replay" ] && [ -f "$prefix/lib/pkgconfig/starpu-1.3.pc" ]; then
  echo "$prefix"
  exit 0
fi

if [ "$(id -u)" = 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    build-essential pkg-config libsimgrid-dev libhwloc-dev libltdl-dev libboost-dev >&2
fi
source_dir=$("$here/starpu_source.sh" "$prefix/src")
build="$prefix/build"
mkdir -p "$build"
cd "$build"
if [ ! -f config.status ]; then
  "$source_dir/configure" --prefix="$prefix" --enable-simgrid --disable-cuda --disable-opencl --disable-mpi \
    --disable-fortran --disable-build-tests --disable-build-examples --disable-build-doc --disable-starpufft \
    --disable-socl --disable-openmp --disable-mlr --disable-hdf5 --disable-fxt >&2
fi
make -j"$(nproc)" >&2
make install >&2
echo "$prefix"
