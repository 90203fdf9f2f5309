#!/bin/bash
# Builds StarPU 1.3 with FxT tracing (and StarPU-MPI) from Debian 12's own source package, so
# that tests/starpu/record_fixtures.sh can record real traces. Debian's libstarpu is built
# without FxT, which is why this exists. Not run by CI: the fixtures it helps record are
# committed. About 3 to 5 minutes on 2 cores. Needs root for apt-get.
#
# usage: tests/starpu/build_starpu_fxt.sh [PREFIX]     (default PREFIX: build/starpu-fxt)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
prefix=$(realpath -m "${1:-build/starpu-fxt}")

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  dpkg-dev build-essential pkg-config libfxt-dev libhwloc-dev libopenmpi-dev openmpi-bin \
  libltdl-dev >/dev/null
cd "$("$here/starpu_source.sh" "$prefix/src")"

# CUDA, OpenCL, Fortran and the bundled programs are left out: the fixtures run on CPUs, and
# each of those adds minutes to the build.
if [ ! -f config.status ]; then
  ./configure --prefix="$prefix" --with-fxt --enable-mpi --with-mpicc="$(command -v mpicc)" \
    --disable-cuda --disable-opencl --disable-fortran --disable-build-tests \
    --disable-build-examples --disable-build-doc --disable-starpufft --disable-socl \
    --disable-openmp --disable-mlr --disable-hdf5 --disable-mpi-check >/dev/null
fi
make -j"$(nproc)" >/dev/null
make install >/dev/null
echo "StarPU with FxT installed in $prefix"
"$prefix/bin/starpu_fxt_tool" --help 2>&1 | head -n 1 || true
