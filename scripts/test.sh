#!/usr/bin/env bash
# Sets up, builds everything with warnings as errors, and runs every test through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --workflow --preset ci
# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer (Debug): a
# sanitizer report fails the test that triggered it (exit code 99, CMakePresets.json).
cmake --workflow --preset sanitize
bash scripts/fuzz.sh all 30  # each fuzz target 30 s from its corpus (clang, libFuzzer); fails on a crash
# The benchmark command itself is exercised too (small sizes; figures not compared to targets).
./build/ci/app/cli/tilelens bench replay --quick
./build/ci/app/cli/tilelens bench db --quick
./build/ci/app/cli/tilelens bench schedulers --quick
# The GUI's benchmark: open a 100,000-task run and repaint its tile view (offscreen).
if [ -x ./build/ci/app/gui/tilelens-gui ]; then
  QT_QPA_PLATFORM=offscreen ./build/ci/app/gui/tilelens-gui --bench 2>&1 | grep -v XDG_RUNTIME_DIR
fi
