#!/usr/bin/env bash
# Runs the reduction benchmark on a GPU machine: CUB (built here by nvcc)
# and coop, in one session, into one CSV. Needs the coop binary built
# beforehand (cargo build --release --example reduce_bench) and passed as $1.
# Usage: examples/bench/run.sh path/to/reduce_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
coop_bin="$1"
out="${2:-reduce_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
nvcc -O3 -std=c++17 -arch="$arch" -o /tmp/cub_reduce "$here/cub_reduce.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    /tmp/cub_reduce
    "$coop_bin"
    /tmp/cub_reduce | grep -v '^copy'   # CUB again: drift between the runs shows
} | tee "$out"
