#!/usr/bin/env bash
# Runs the conjugate-gradient benchmark on a GPU machine: nvcc makes PTX of
# the CUDA C++ sample kernel (conjugate_gradient.cu) and
# conjugate_gradient_bench (built beforehand: cargo build --release -p
# coop-bench --bin conjugate_gradient_bench) times it beside coop's port.
# Usage: examples/bench/conjugate_gradient.sh path/to/conjugate_gradient_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/conjugate_gradient.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/conjugate_gradient.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-conjugate_gradient_bench.csv}"
