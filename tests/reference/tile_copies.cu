// CUDA twins of coop-test-kernels' `async_copies::tile_rows_*`, compiled by
// nvcc at test time (tests/gpu.rs): each tile of N threads walks runs of C
// values in a grid-stride loop through two rows of its own that take turns,
// with cooperative groups' `memcpy_async` on the tile, `wait_prior<1>` and
// `wait`. `memcpy_async` has no zero-filling form, so the tile's threads
// store the zeros of a partial run; the tile's wait orders them with the
// copies. Multi-warp tiles come from a block made with `block_tile_memory`.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstddef>

namespace cg = cooperative_groups;

template <unsigned N, unsigned C, unsigned R>
__device__ void tile_rows(const unsigned* input, size_t input_len, unsigned offset,
                          unsigned* out) {
    __shared__ cg::block_tile_memory<1024> scratch;
    __shared__ __align__(16) unsigned a[R][C];
    __shared__ __align__(16) unsigned b[R][C];
    cg::thread_block block = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<N>(block);
    size_t skip = offset < input_len ? offset : input_len;
    const unsigned* data = input + skip;
    size_t len = input_len - skip;
    size_t runs = (len + C - 1) / C;
    size_t per_block = block.size() / N;
    size_t stride = (size_t)gridDim.x * per_block;
    size_t k = (size_t)blockIdx.x * per_block + block.thread_rank() / N;
    unsigned* rows[2] = {a[block.thread_rank() / N], b[block.thread_rank() / N]};
    auto fill = [&](unsigned* row, size_t r) {
        size_t s = r * C < len ? r * C : len;
        size_t e = s + C < len ? s + C : len;
        cg::memcpy_async(tile, row, data + s, (e - s) * sizeof(unsigned));
        for (size_t j = (e - s) + tile.thread_rank(); j < C; j += N) row[j] = 0;
    };
    fill(rows[0], k);
    fill(rows[1], k + stride);
    int now = 0;
    while (k < runs) {
        cg::wait_prior<1>(tile);
        unsigned* row = rows[now];
        for (unsigned j = tile.thread_rank(); j < C; j += N) out[k * C + j] = row[C - 1 - j] * 3u + j;
        tile.sync();
        fill(row, k + 2 * stride);
        now ^= 1;
        k += stride;
    }
    cg::wait(tile);
}

#define TILE_ROWS(name, n, c, r)                                                              \
    extern "C" __global__ void name(const unsigned* input, size_t input_len, unsigned offset, \
                                    unsigned* out, size_t) {                                  \
        tile_rows<n, c, r>(input, input_len, offset, out);                                    \
    }

TILE_ROWS(tile_rows_t8, 8, 33, 32)
TILE_ROWS(tile_rows_t32, 32, 96, 8)
TILE_ROWS(tile_rows_t64, 64, 50, 4)
TILE_ROWS(tile_rows_t128, 128, 256, 2)
