#!/usr/bin/env bash
# Builds everything warning-clean (-Werror) and runs every test under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVPLAN_WERROR=ON -DKVPLAN_BUILD_TESTS=ON
cmake --build build-test
QT_QPA_PLATFORM=offscreen ctest --test-dir build-test --output-on-failure
