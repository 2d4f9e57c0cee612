#!/usr/bin/env bash
# Runs the scan-by-key benchmark on a GPU machine: builds CUB's side
# (cub_scan_by_key.cu) with nvcc as a shared library, then runs coop's
# scan_by_key_bench (built beforehand: cargo build --release -p
# coop-bench --bin scan_by_key_bench) with it.
# Usage: examples/bench/scan_by_key.sh path/to/scan_by_key_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"
out="${2:-scan_by_key_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_SCAN_BY_KEY_LIB:-/tmp/libcub_scan_by_key.so}"
[ -f "$lib" ] || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_scan_by_key.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_SCAN_BY_KEY_LIB="$lib" "$bin"
} | tee "$out"
