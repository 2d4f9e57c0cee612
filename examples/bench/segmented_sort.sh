#!/usr/bin/env bash
# Runs the segmented sort benchmark on a GPU machine: builds CUB's side
# (cub_segmented_sort.cu) with nvcc as a shared library, then runs coop's
# segmented_sort_bench (built beforehand: cargo build --release -p
# coop-bench --bin segmented_sort_bench) with it.
# Usage: examples/bench/segmented_sort.sh path/to/segmented_sort_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"
out="${2:-segmented_sort_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_SEGMENTED_SORT_LIB:-/tmp/libcub_segmented_sort.so}"
[ -f "$lib" ] || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_segmented_sort.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_SEGMENTED_SORT_LIB="$lib" "$bin"
} | tee "$out"
