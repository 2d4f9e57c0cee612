#!/usr/bin/env bash
# Runs the top-k benchmark on a GPU machine: builds CUB's side
# (cub_top_k.cu) with nvcc as a shared library (with DeviceTopK where the
# toolkit has it), then runs coop's top_k_bench (built beforehand:
# cargo build --release -p coop-bench --bin top_k_bench) with it.
# Usage: examples/bench/top_k.sh path/to/top_k_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$1"
out="${2:-top_k_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_TOP_K_LIB:-/tmp/libcub_top_k.so}"
if [ ! -f "$lib" ]; then
    nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_top_k.cu" 2> /tmp/cub_top_k.err \
        || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -DCOOP_NO_DEVICE_TOPK -o "$lib" "$here/cub_top_k.cu"
fi
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_TOP_K_LIB="$lib" "$bin"
} | tee "$out"
