#!/usr/bin/env bash
# Builds everything warning-clean (-Werror) and runs every test under ctest; then builds the same
# suite with AddressSanitizer + UndefinedBehaviorSanitizer in a second folder (build-asan) and runs it,
# and last runs every fuzz target a few seconds (build-fuzz). KVPLAN_TEST_ASAN=0 skips the sanitizer
# build, KVPLAN_TEST_FUZZ=0 the fuzz pass (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVPLAN_WERROR=ON -DKVPLAN_BUILD_TESTS=ON
# Every package configure found must come from setup.sh: a package installed by hand fails here.
bash scripts/check-deps.sh build-test
cmake --build build-test
QT_QPA_PLATFORM=offscreen ctest --test-dir build-test --output-on-failure

if [[ ${KVPLAN_TEST_ASAN:-1} != 0 ]]; then
  # The sanitizer build: -O1 keeps compile time and the run short; GCC's -fsanitize=undefined leaves out
  # float-cast-overflow, which guards every double -> integer conversion, so it is added. GCC 12 warns
  # "may be used uninitialized" inside libstdc++'s <regex> (Catch2) once instrumented, a known false
  # positive, so that one warning is off here (the first build keeps it). The GUI and the
  # benchmark are left out: Qt's own allocations make LeakSanitizer noisy, and the CUDA code is not
  # sanitizer-clean by construction; everything they compute comes from core, which is sanitized here.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DCMAKE_CXX_FLAGS="-fsanitize=float-cast-overflow -Wno-maybe-uninitialized" -DKVPLAN_SANITIZE=ON -DKVPLAN_WERROR=ON \
    -DKVPLAN_BUILD_TESTS=ON -DKVPLAN_BUILD_GUI=OFF -DKVPLAN_BUILD_BENCH=OFF
  cmake --build build-asan
  ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir build-asan --output-on-failure --parallel 2
fi

# The fuzz smoke pass (issue 28): every libFuzzer target (fuzz/), built with the clang-14 that setup.sh
# installs (ASan + UBSan), runs 5 s from its committed corpus; a crash, a leak, an input taking 25 s or
# 2 GiB fails the run and leaves the input in build-fuzz/findings/ (scripts/fuzz.sh, fuzz/README.md).
# KVPLAN_TEST_FUZZ=0 skips it.
if [[ ${KVPLAN_TEST_FUZZ:-1} != 0 ]]; then
  FUZZ_BUILD=build-fuzz bash scripts/fuzz.sh 5
fi
