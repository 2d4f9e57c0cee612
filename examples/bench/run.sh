#!/usr/bin/env bash
# Runs the reduction benchmark on a GPU machine: builds CUB's side
# (cub_reduce.cu) with nvcc as a shared library and runs coop's
# reduce_bench with it, so that both are timed in turns in one process.
# Needs the coop binary built beforehand (cargo build --release -p
# coop-bench --bin reduce_bench: target/release/reduce_bench) and passed as
# $1; extra environment (COOP_BENCH, ...) is passed on.
# Usage: examples/bench/run.sh path/to/reduce_bench [out.csv]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
coop_bin="$1"
out="${2:-reduce_bench.csv}"
export PATH="$PATH:/usr/local/cuda/bin"
arch="sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)"
lib="${COOP_CUB_LIB:-/tmp/libcub_reduce.so}"
[ -f "$lib" ] || nvcc -O3 -std=c++17 -arch="$arch" -shared -Xcompiler -fPIC -o "$lib" "$here/cub_reduce.cu"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | sed 's/^/# /'
    COOP_CUB_LIB="$lib" "$coop_bin"
} | tee "$out"
