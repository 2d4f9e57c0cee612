#!/bin/bash
# Runs the examples that follow the CUDA tutorials (dot product, smoothing
# stencil, warp functions, shared-memory banks) on a GPU machine: timed
# runs, compute-sanitizer (racecheck, synccheck, memcheck) on each, ncu's
# shared-memory counters for the 2-D tile and transpose kernels, and the
# CUDA reference transpose.
#
# Usage: examples/bench/tutorial_examples.sh BIN_DIR OUT_DIR
#   BIN_DIR holds the release binaries of the examples dot, stencil,
#   shared_tiles, transpose and warp_vote (cargo build --release -p
#   coop-examples --examples; target/release/examples/). Needs nvcc,
#   compute-sanitizer and ncu on PATH.
set -u
D=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
examples="dot stencil shared_tiles transpose warp_vote"
for e in $examples; do
  echo "== $e"
  "$D/$e"
done > "$OUT/tutorial-examples.txt" 2>&1
for e in $examples; do
  for tool in racecheck synccheck memcheck; do
    echo "== compute-sanitizer --tool $tool $e --quick"
    compute-sanitizer --tool $tool "$D/$e" --quick 2>&1 | grep -v "^\s*$" | tail -4
  done
done > "$OUT/compute-sanitizer.txt" 2>&1
M=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
M=$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --metrics $M "$D/shared_tiles" > "$OUT/ncu-shared-tiles.txt" 2>&1
ncu --metrics $M -k regex:transpose "$D/transpose" --quick > "$OUT/ncu-transpose.txt" 2>&1
nvcc -O3 -arch=sm_90 "$HERE/transpose.cu" -o "$OUT/transpose_cuda" && "$OUT/transpose_cuda" > "$OUT/transpose-cuda.txt" 2>&1
grep -h "SUMMARY" "$OUT/compute-sanitizer.txt" | sort | uniq -c
