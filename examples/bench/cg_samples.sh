#!/usr/bin/env bash
# Runs the benchmark of the small cooperative-groups samples on a GPU machine: nvcc makes PTX of the
# CUDA C++ sample kernels (cg_samples.cu) and cg_samples_bench
# (built beforehand: cargo build --release -p coop-bench --bin
# cg_samples_bench) times them beside coop's port.
# Usage: examples/bench/cg_samples.sh path/to/cg_samples_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
ptx="${COOP_CUDA_PTX:-/tmp/cg_samples.ptx}"
nvcc -O3 -std=c++17 -arch="$arch" -ptx -o "$ptx" "$here/cg_samples.cu"
COOP_CUDA_PTX="$ptx" "$1" | tee "${2:-cg_samples_bench.csv}"
