#!/usr/bin/env bash
# Runs the tile-sort benchmark on a GPU machine: nvcc makes PTX of the CUB
# twins (tile_sort.cu) and tile_sort_bench (built beforehand: cargo build
# --release -p coop-bench --bin tile_sort_bench) times them beside coop's
# kernels (examples/kernels/src/tile_sort.rs).
# Usage: examples/bench/tile_sort.sh path/to/tile_sort_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/tile_sort.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/tile_sort.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-tile_sort_bench.csv}"
