// CUDA C++ twins of coop's grid-sync example kernels
// (examples/kernels/src/grid_sum.rs), with the same entry names and
// parameters, written with cooperative groups' grid_group. grid_sync_bench
// loads the PTX nvcc makes of this file (COOP_CUDA_PTX) and times both
// sides in turns.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstddef>

namespace cg = cooperative_groups;

__device__ float block_sum(cg::thread_block block, float v) {
    __shared__ float warp_sums[32];
    auto warp = cg::tiled_partition<32>(block);
    float w = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = w;
    block.sync();
    float t = 0;
    if (warp.meta_group_rank() == 0) {
        t = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;
        t = cg::reduce(warp, t, cg::plus<float>());
    }
    block.sync();
    return t;  // thread 0's is the block's sum
}

__device__ float block_share(cg::thread_block block, size_t rank, size_t threads, const float* in,
                             size_t n) {
    float acc = 0;
    for (size_t i = rank; i < n; i += threads) acc += in[i];
    return block_sum(block, acc);
}

extern "C" __global__ void sum_one_launch(const float* in, size_t n, float* partial, size_t p_len,
                                          float* total, size_t t_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    float s = block_share(block, grid.thread_rank(), grid.num_threads(), in, n);
    if (block.thread_rank() == 0) partial[grid.block_rank()] = s;
    grid.sync();
    if (grid.block_rank() == 0) {
        float acc = 0;
        for (size_t b = block.thread_rank(); b < grid.num_blocks(); b += block.num_threads())
            acc += partial[b];
        float t = block_sum(block, acc);
        if (block.thread_rank() == 0) total[0] = t;
    }
}

extern "C" __global__ void sum_partials(const float* in, size_t n, float* partial, size_t p_len) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    float s = block_share(block, grid.thread_rank(), grid.num_threads(), in, n);
    if (block.thread_rank() == 0) partial[grid.block_rank()] = s;
}

extern "C" __global__ void sum_partials_finish(const float* partial, size_t p_len, float* total,
                                               size_t t_len) {
    cg::thread_block block = cg::this_thread_block();
    float acc = 0;
    for (size_t b = block.thread_rank(); b < p_len; b += block.num_threads()) acc += partial[b];
    float t = block_sum(block, acc);
    if (block.thread_rank() == 0) total[0] = t;
}

__device__ void smooth(size_t rank, size_t threads, const float* src, size_t n, float* dst) {
    for (size_t k = rank; k < n; k += threads) {
        float left = k > 0 ? src[k - 1] : 0.0f;
        float right = k + 1 < n ? src[k + 1] : 0.0f;
        dst[k] = (left + 2.0f * src[k] + right) * 0.25f;
    }
}

extern "C" __global__ void smooth_rounds(unsigned rounds, float* a, size_t a_len, float* b,
                                         size_t b_len) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned r = 0; r < rounds; ++r) {
        smooth(grid.thread_rank(), grid.num_threads(), r % 2 == 0 ? a : b, a_len,
               r % 2 == 0 ? b : a);
        grid.sync();
    }
}

extern "C" __global__ void smooth_round(const float* src, size_t n, float* dst, size_t dst_len) {
    cg::grid_group grid = cg::this_grid();
    smooth(grid.thread_rank(), grid.num_threads(), src, n, dst);
}

extern "C" __global__ void grid_syncs(unsigned rounds, unsigned* out, size_t out_len) {
    cg::grid_group grid = cg::this_grid();
    for (unsigned r = 0; r < rounds; ++r) grid.sync();
    if (grid.thread_rank() == 0) out[0] = rounds;
}

extern "C" __global__ void nothing(unsigned* out, size_t out_len) {
    if (cg::this_grid().thread_rank() == ~0ull) out[0] = 0;
}
