#!/usr/bin/env bash
# Runs the integral-image benchmark on a GPU machine: nvcc makes PTX of the
# CUDA C++ sample kernels (integral_image.cu) and integral_image_bench
# (built beforehand: cargo build --release -p coop-bench --bin
# integral_image_bench) times them beside coop's port.
# Usage: examples/bench/integral_image.sh path/to/integral_image_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/integral_image.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/integral_image.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-integral_image_bench.csv}"
