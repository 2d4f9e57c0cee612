#!/usr/bin/env bash
# Runs the split-barrier benchmark on a GPU machine: nvcc makes PTX of the
# CUDA C++ twins (split_barrier.cu) and split_barrier_bench (built
# beforehand: cargo build --release -p coop-bench --bin split_barrier_bench)
# times them beside coop's kernels.
# Usage: examples/bench/split_barrier.sh path/to/split_barrier_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/split_barrier.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/split_barrier.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-split_barrier_bench.csv}"
