#!/usr/bin/env bash
# The modules loaded on demand (util/loadable_module.hpp). tilelens execute with
# TILELENS_CUDA_MODULE pointing at a stale module: it must be refused with
# a message that says so (exit 1, as for no GPU), never called; a missing file says where it looked.
set -euo pipefail
tilelens=$1
stale=$2
status=0
err=$(TILELENS_CUDA_MODULE=$stale "$tilelens" execute --workload matmul2d:N=4,b=16 --memory 4items 2>&1 >/dev/null) || status=$?
[ "$status" -eq 1 ] || { echo "a stale module: exit $status, expected 1: $err"; exit 1; }
grep -q "another build of tilelens" <<<"$err" || { echo "no 'another build' in: $err"; exit 1; }
grep -q "laid out differently" <<<"$err" || { echo "no layout reason in: $err"; exit 1; }
if grep -q "was called" <<<"$err"; then echo "the stale module was called: $err"; exit 1; fi
echo "refused: $err"
# The CBC module (loaded only for the optimum's integer program): a library that is not one is
# refused by name in the CBC columns. (That the module built beside tilelens loads and solves,
# the optimum's tests show: "the integer program CBC solves agrees with the search".)
out=$(TILELENS_CBC_MODULE=$stale "$tilelens" bench optimum --cbc --quick --time-limit 0.01 2>&1 | sed -n 3p)
grep -q "is not a tilelens CBC module" <<<"$out" || { echo "a library that is no CBC module was not refused by name: $out"; exit 1; }
echo "CBC module: $out"
