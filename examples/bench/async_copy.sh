#!/usr/bin/env bash
# Runs the streaming benchmark on a GPU machine: nvcc makes PTX of the CUDA
# C++ twins (async_copy.cu) and async_copy_bench (built beforehand: cargo
# build --release -p coop-bench --bin async_copy_bench) times them beside
# coop's kernels and the driver's device-to-device copy.
# Usage: examples/bench/async_copy.sh path/to/async_copy_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/async_copy.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/async_copy.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-async_copy_bench.csv}"
