#!/usr/bin/env bash
# Runs the grid-sync benchmark on a GPU machine: nvcc makes PTX of the CUDA
# C++ twins (grid_sync.cu) and grid_sync_bench (built beforehand: cargo
# build --release -p coop-bench --bin grid_sync_bench) times them beside
# coop's kernels.
# Usage: examples/bench/grid_sync.sh path/to/grid_sync_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/grid_sync.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/grid_sync.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-grid_sync_bench.csv}"
