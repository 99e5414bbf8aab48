#!/usr/bin/env bash
# kvplan-bench on an NVIDIA GPU machine, in one go: build with CUDA, run the correctness checks,
# sweep cuda-naive and cuda-tiled (head_dim 64 and 128, causal and not, n = 256 .. 32768), and
# write the report, its text and its plot to $OUT (default bench/results).
#
#   OUT=/tmp/out bash bench/gpu-run.sh
#
# Environment: OUT (output folder), BUILD (build folder, default build-gpu), SKIP_BUILD=1 (use an
# existing $BUILD), SEQ (sweep lengths, default 256..32768), REPEATS (default 10), LIMIT (seconds
# the whole script should end within, default 540: the check gets at most 120 of them, the sweep
# what is left less 45 for the plot; a sweep stopped at its limit still leaves the JSON of the runs
# it finished, which kvplan-bench rewrites after each run).
# Exit code: 0 when the checks and every point passed; 1 otherwise (everything possible is still
# written: a failing kernel does not stop the other backend's sweep).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-bench/results}
build=${BUILD:-build-gpu}
stamp=$(date -u +%Y-%m-%d)
mkdir -p "$out"
log() { echo "gpu-run: $*" >&2; }
limit=${LIMIT:-540}
# Seconds left before $limit, less a reserve ($1), at least 30.
remaining() { local s=$((limit - SECONDS - $1)); echo $((s < 30 ? 30 : s)); }

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DKVPLAN_CUDA=ON \
    -DKVPLAN_BUILD_TESTS=OFF -DKVPLAN_BUILD_GUI=OFF >"$out/gpu-$stamp-configure.txt" 2>&1 ||
    { log "configure failed: see $out/gpu-$stamp-configure.txt"; tail -20 "$out/gpu-$stamp-configure.txt" >&2; exit 2; }
  cmake --build "$build" -j "$(nproc)" --target kvplan-bench >"$out/gpu-$stamp-build.txt" 2>&1 ||
    { log "build failed: see $out/gpu-$stamp-build.txt"; tail -30 "$out/gpu-$stamp-build.txt" >&2; exit 2; }
  # The plot needs Qt 6 Charts; without it the JSON is plotted later elsewhere.
  cmake --build "$build" -j "$(nproc)" --target kvplan-bench-plot >>"$out/gpu-$stamp-build.txt" 2>&1 ||
    log "kvplan-bench-plot not built (Qt 6 Charts missing?): plot the JSON elsewhere"
fi
bench="$build/bench/kvplan-bench"
plot="$build/bench/kvplan-bench-plot"
[[ -x $bench ]] || { log "$bench missing"; exit 2; }

command -v nvidia-smi >/dev/null && nvidia-smi >"$out/gpu-$stamp-nvidia-smi.txt" 2>&1
status=0
check_s=$(remaining 60)
((check_s > 120)) && check_s=120
log "checks (at most ${check_s} s)"
timeout -k 10 "$check_s" "$bench" --check --backend cuda 2>&1 | tee "$out/gpu-$stamp-check.txt"
rc=${PIPESTATUS[0]}
((rc == 124)) && log "checks stopped at their time limit"
((rc != 0)) && status=1
sweep_s=$(remaining 45)
log "sweeps (at most ${sweep_s} s)"
timeout -k 10 "$sweep_s" "$bench" --backend cuda-naive,cuda-tiled --head-dim 64,128 --causal=both \
  --seq "${SEQ:-256,512,1024,2048,4096,8192,16384,32768}" --repeats "${REPEATS:-10}" \
  --out "$out/gpu-$stamp.json" 2>"$out/gpu-$stamp-progress.txt" | tee "$out/gpu-$stamp.txt"
rc=${PIPESTATUS[0]}
((rc == 124)) && log "sweeps stopped at their time limit: the JSON holds the runs finished before it"
((rc != 0)) && status=1
if [[ -x $plot && -s $out/gpu-$stamp.json ]]; then
  QT_QPA_PLATFORM=offscreen timeout -k 5 60 "$plot" "$out/gpu-$stamp.json" --out "$out/gpu-$stamp.png" \
    --title "Prefill attention on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" ||
    log "plot failed"
fi
log "done (status $status): $(ls "$out" | grep "gpu-$stamp" | tr '\n' ' ')"
exit $status
