#!/usr/bin/env bash
# Builds kvplan's libFuzzer targets with clang (ASan + UBSan) in build-fuzz and runs each for SECONDS
# (default 600), one after another, then prints executions and findings per target.
#   bash scripts/fuzz.sh [SECONDS]            all targets: preset hf_config units size calibration scenario
#                                             safetensors gguf hf_cache hub
#   FUZZ_TARGETS="units size" bash scripts/fuzz.sh 60
#   FUZZ_RUNS=1000000 bash scripts/fuzz.sh    each target for 1,000,000 executions instead of a time
#   bash scripts/fuzz.sh 5                    a smoke pass (a few seconds each), as CI may run it
# The working corpus grows in build-fuzz/corpus/<target> (seeded from fuzz/corpus/<target>, which
# stays as committed); a crashing input lands in build-fuzz/findings/<target>/ and stops that target.
# Details, and how a finding becomes a regression test: fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
read -r -a targets <<<"${FUZZ_TARGETS:-preset hf_config units size calibration scenario safetensors gguf hf_cache hub}"
build=${FUZZ_BUILD:-build-fuzz}
cxx=${FUZZ_CXX:-clang++-14}

command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (Debian: apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVPLAN_FUZZ=ON \
  -DKVPLAN_BUILD_GUI=OFF -DKVPLAN_BUILD_BENCH=OFF -DKVPLAN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"${FUZZ_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

summary=()
status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t findings=$build/findings/$t log=$build/fuzz-$t.log
  mkdir -p "$corpus" "$findings"
  before=$(find "$findings" -type f | wc -l)
  echo "fuzz: $t for ${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-${secs}s} (log: $log)" >&2
  start=$(date +%s)
  rc=0
  # -timeout: one input taking 25 s is a finding (a hang); -rss_limit_mb: so is using 2 GiB.
  limit=(-max_total_time="$secs")
  [[ -n ${FUZZ_RUNS:-} ]] && limit=(-runs="$FUZZ_RUNS")
  "$build/fuzz/fuzz_$t" "${limit[@]}" -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict=fuzz/kvplan.dict -artifact_prefix="$findings/" "$corpus" "fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  elapsed=$(($(date +%s) - start))
  execs=$(awk '/stat::number_of_executed_units:/ {print $2}' "$log" | tail -1)
  rate=$(awk '/stat::average_exec_per_sec:/ {print $2}' "$log" | tail -1)
  units=$(find "$corpus" -type f | wc -l)
  new=$(($(find "$findings" -type f | wc -l) - before))
  if ((rc != 0 || new > 0)); then
    status=1
    what="FINDING (exit $rc): $(grep -m1 -E 'ERROR:|runtime error|invariant failed|SUMMARY' "$log" || true)"
    what+=" -> $(ls -t "$findings" | head -1)"
  else
    what="no findings"
  fi
  summary+=("$(printf '%-10s %6ss %12s execs %8s/s  corpus %5s  %s' "$t" "$elapsed" "${execs:-?}" "${rate:-?}" "$units" "$what")")
done

echo
printf '%s\n' "target      time     executions   exec/s  corpus       findings"
printf '%s\n' "${summary[@]}"
exit $status
