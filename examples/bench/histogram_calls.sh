#!/usr/bin/env bash
# Runs the benchmark of coop_host::histogram against CUB's DeviceHistogram
# on a GPU machine: builds CUB's side (cub_histogram_calls.cu) with nvcc as
# a shared library, then runs histogram_calls_bench (built beforehand:
# cargo build --release -p coop-bench --bin histogram_calls_bench) with it.
# Usage: examples/bench/histogram_calls.sh path/to/histogram_calls_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"
out="${2:-histogram_calls_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_HC_LIB:-/tmp/libcub_histogram_calls.so}"
[ -f "$lib" ] || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_histogram_calls.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_HC_LIB="$lib" "$bin"
} | tee "$out"
