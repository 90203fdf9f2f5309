#!/usr/bin/env bash
# Fuzzes the StarPU importer with libFuzzer (clang, from Debian's clang package) for SECONDS
# (default 60), starting from the checked-in corpus. New inputs that reach new code land in
# build/fuzz/new-corpus; copy the interesting ones into tests/fuzz/corpus. A crash leaves its
# input as build/fuzz/crash-*.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/setup.sh
command -v clang++ >/dev/null || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get install -y -qq clang >/dev/null; }
CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTILELENS_FUZZ=ON >/dev/null
cmake --build build/fuzz --target fuzz_starpu_rec
mkdir -p build/fuzz/new-corpus
cd build/fuzz
./tests/fuzz_starpu_rec -max_total_time="$seconds" -max_len=65536 new-corpus ../../tests/fuzz/corpus
