#!/usr/bin/env bash
# tilelens execute with TILELENS_CUDA_MODULE pointing at a stale module: it must be refused with
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
