#!/usr/bin/env bash
# Runs the algorithms benchmark on a GPU machine: builds CUB's side
# (cub_algorithms.cu) with nvcc as a shared library and runs coop's
# benchmark with it, so that both are timed in turns in one process.
# Needs the coop binary built beforehand and passed as $1; extra
# environment (COOP_BENCH, ...) is passed on.
# Usage: examples/bench/algorithms.sh path/to/coop_bench_binary [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
coop_bin="$1"
out="${2:-algorithms_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_ALGO_LIB:-/tmp/libcub_algorithms.so}"
[ -f "$lib" ] || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_algorithms.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_ALGO_LIB="$lib" "$coop_bin"
} | tee "$out"
