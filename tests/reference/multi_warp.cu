// CUDA twins of coop-test-kernels' `multi_warp` kernels, with CUDA's
// multi-warp tiles (`cg::tiled_partition<N>` for N = 64 to 512, from a
// block made with `block_tile_memory`; CUDA has no tile of 1024). Compiled
// by the GPU suite on its own: where nvcc lacks them, the suite says so
// and compares coop with the host and the CPU backend only.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstddef>

namespace cg = cooperative_groups;

constexpr int MULTI_WARP_FIELDS = 13;

template <unsigned N>
__device__ void multi_warp(const unsigned* values, unsigned* out) {
    __shared__ cg::block_tile_memory<1024> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    size_t g = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned v = values[g];
    auto tile = cg::tiled_partition<N>(block);
    unsigned long long wide = cg::reduce(tile, (unsigned long long)v * 7, cg::plus<unsigned long long>());
    auto warp = cg::tiled_partition<32>(tile);
    auto half = cg::tiled_partition<N / 2>(tile);
    unsigned before = cg::exclusive_scan(tile, v, cg::plus<unsigned>());
    unsigned f[MULTI_WARP_FIELDS] = {
        tile.thread_rank(),
        tile.num_threads(),
        tile.meta_group_rank(),
        tile.meta_group_size(),
        tile.shfl(v, 5),
        tile.any(v % 97 == 0) ? 1u : 0u,
        tile.all(v < 999) ? 1u : 0u,
        cg::reduce(tile, v, cg::plus<unsigned>()),
        (unsigned)wide ^ (unsigned)(wide >> 32),
        cg::inclusive_scan(tile, v, cg::plus<unsigned>()),
        tile.thread_rank() == 0 ? 0u : before,
        warp.meta_group_rank(),
        cg::reduce(half, v, cg::greater<unsigned>()),
    };
    for (int k = 0; k < MULTI_WARP_FIELDS; ++k) out[MULTI_WARP_FIELDS * g + k] = f[k];
}

#define MULTI_WARP(N)                                                                      \
    extern "C" __global__ void multi_warp_##N(const unsigned* values, size_t values_len,   \
                                               unsigned* out, size_t out_len) {            \
        multi_warp<N>(values, out);                                                        \
    }
MULTI_WARP(64) MULTI_WARP(128) MULTI_WARP(256) MULTI_WARP(512)
