#!/usr/bin/env bash
# The GPU protocol: what every change to kernels or launches runs on a GPU
# machine before it lands. Writes its logs to OUT_DIR and prints a summary.
#
#   1. the first device-wide calls of a program on a cold driver (its
#      compilation cache disabled): coop-host's machine code, then its PTX
#      (COOP_PTX_JIT=1) for comparison;
#   2. the GPU suite (tests/gpu.rs), every test under its watchdog;
#   3. compute-sanitizer (racecheck, synccheck, memcheck, initcheck) over the
#      suite's kernels shaped as users write them (guarded loads, grid-stride
#      loops of multi-warp tiles, clusters and grid syncs), its asynchronous
#      copies and pipelines, its multi-warp
#      tile, cluster, dynamic-group and cooperative tests, and over every
#      example (--quick sizes);
#   4. compute-sanitizer over the streaming benchmark's kernels
#      (async_copy_bench, when BIN_DIR has it).
#
# Usage: examples/bench/gpu_protocol.sh BIN_DIR OUT_DIR
#   BIN_DIR holds the release binaries: gpu_suite (the test binary of
#   `cargo test --release -p coop-tests --test gpu --no-run`, copied under
#   that name), first_call_bench, async_copy_bench, and the examples
#   (`cargo build --release --examples`). Needs nvcc and compute-sanitizer on PATH (the CUDA
#   toolkit's bin/).
set -u
B=$1
OUT=$2
mkdir -p "$OUT"
export PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | sed 's/^/# /' | tee "$OUT/machine.txt"

echo "== 1. first calls on a cold driver"
{
    rm -rf "$HOME/.nv/ComputeCache"
    echo "# machine code (coop-host's cubins)"
    CUDA_CACHE_DISABLE=1 timeout 120 "$B/first_call_bench"
    echo "# PTX compiled by the driver (COOP_PTX_JIT=1)"
    CUDA_CACHE_DISABLE=1 COOP_PTX_JIT=1 timeout 300 "$B/first_call_bench"
} > "$OUT/first-call.txt" 2>&1
cat "$OUT/first-call.txt"

echo "== 2. the GPU suite"
timeout 600 "$B/gpu_suite" --ignored --test-threads=1 > "$OUT/gpu-suite.log" 2>&1
echo "exit code $?"
grep -E "^test |test result|watchdog" "$OUT/gpu-suite.log" | tail -40

echo "== 3. compute-sanitizer"
tests="loop_shaped user_shaped asynchronous_copies multi_warp clusters dynamic_groups cooperative_launches the_block_scan"
for tool in racecheck synccheck memcheck initcheck; do
    echo "--- $tool: GPU suite ($tests)"
    timeout 900 compute-sanitizer --tool "$tool" --print-limit 20 "$B/gpu_suite" --ignored --test-threads=1 $tests 2>&1 \
        | grep -E "SUMMARY|test result|Hazard|Error|error|hazard" | grep -v "^test .* ok$" | head -12
done > "$OUT/compute-sanitizer.txt" 2>&1
for e in dot stencil shared_tiles transpose warp_vote tiles grid_sum cluster_histogram; do
    [ -x "$B/$e" ] || continue
    for tool in racecheck synccheck memcheck initcheck; do
        echo "--- $tool: example $e --quick"
        timeout 300 compute-sanitizer --tool "$tool" "$B/$e" --quick 2>&1 | grep -E "SUMMARY|Error|hazard" | head -4
    done
done >> "$OUT/compute-sanitizer.txt" 2>&1
cat "$OUT/compute-sanitizer.txt"

echo "== 4. compute-sanitizer over the streaming benchmark's kernels (coop's, 2^16 floats)"
# coop's side alone: the CUDA twins have the same entry names, so a report
# on one of theirs would read as one of coop's. (synccheck reports "Missing
# wait" on CUDA's cuda::pipeline twin: docs/results/compute-sanitizer-async-h200.txt.)
if [ -x "$B/async_copy_bench" ]; then
    for tool in racecheck synccheck memcheck initcheck; do
        echo "--- $tool: async_copy_bench"
        COOP_RUNS=1 COOP_LOGS=16 timeout 300 \
            compute-sanitizer --tool "$tool" --print-limit 10 "$B/async_copy_bench" 2>&1 \
            | grep -E "SUMMARY|Error|hazard" | head -6
    done > "$OUT/compute-sanitizer-streaming.txt" 2>&1
    cat "$OUT/compute-sanitizer-streaming.txt"
fi
