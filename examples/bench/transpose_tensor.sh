#!/usr/bin/env bash
# Runs the transpose benchmark on a GPU machine: nvcc makes PTX of the CUDA
# C++ twins (transpose_tensor.cu) and transpose_bench (built beforehand:
# cargo build --release -p coop-bench --bin transpose_bench) times them
# beside coop's kernels and the driver's device-to-device copy.
# Usage: examples/bench/transpose_tensor.sh path/to/transpose_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/transpose_tensor.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/transpose_tensor.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-transpose_bench.csv}"
