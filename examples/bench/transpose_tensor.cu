// CUDA C++ twins of coop's transposes (examples/kernels/src/transpose.rs),
// with the same entry names and parameters (a u32 is an unsigned, a slice
// and an Out<f32> are (pointer, length), a tensor map parameter is the
// address of the host's map in global memory): the classic padded tile of
// the shared-memory tutorials, and the copy engine's version, a tensor load
// into shared memory completing on a cuda::barrier, a transposition along
// diagonals into a second tile, and a tensor store of it, written with
// cuda::device::experimental's TMA calls as the CUDA Programming Guide's
// TMA chapter writes them. transpose_bench loads the PTX nvcc makes of this
// file (COOP_CUDA_PTX).
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda.h>
#include <cstddef>

constexpr int TILE = 32;
constexpr int ROWS = 4;

extern "C" __global__ void transpose_padded(unsigned rows, unsigned cols, const float* in, size_t in_len,
                                            float* out, size_t out_len) {
    __shared__ float tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x;
    unsigned y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

constexpr int STAGES = 2;

// The copy engine's transpose, as coop's: a ring of STAGES input tiles
// loaded by tensor loads on cuda::barriers, each block taking every
// gridDim.x-th tile; the threads transpose a tile along diagonals into one
// of two output tiles in turn, and one __syncthreads a tile both publishes
// it for thread 0's tensor store and frees the other, whose store thread 0
// has waited to be read before the barrier.
extern "C" __global__ void transpose_tensor(unsigned rows, unsigned cols, const CUtensorMap* in,
                                            const CUtensorMap* out) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    namespace cde = cuda::device::experimental;
    namespace ptx = cuda::ptx;
    __shared__ alignas(128) float ring[STAGES][TILE][TILE];
    __shared__ alignas(128) float tiles_out[2][TILE][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
    bool leader = threadIdx.x == 0 && threadIdx.y == 0;
    unsigned across = (cols + TILE - 1) / TILE, tiles = (rows + TILE - 1) / TILE * across;
    if (leader) {
        for (int s = 0; s < STAGES; ++s) init(&full[s], blockDim.x * blockDim.y);
        cde::fence_proxy_async_shared_cta();
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, in, ptx::n32_t<128>());
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, out, ptx::n32_t<128>());
    }
    __syncthreads();
    barrier::arrival_token token[STAGES];
    unsigned next = blockIdx.x;
    auto load = [&](int s) {
        if (next < tiles) {
            int r0 = next / across * TILE, c0 = next % across * TILE;
            if (leader) {
                cde::cp_async_bulk_tensor_2d_global_to_shared(&ring[s], in, c0, r0, full[s]);
                token[s] = cuda::device::barrier_arrive_tx(full[s], 1, sizeof(ring[s]));
            } else {
                token[s] = full[s].arrive();
            }
        }
        next += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int lane = threadIdx.x, warp = threadIdx.y, s = 0, o = 0;
    for (unsigned k = blockIdx.x; k < tiles; k += gridDim.x) {
        full[s].wait(std::move(token[s]));
        for (int step = warp; step < TILE; step += ROWS) {
            int row = (lane + step) % TILE;
            tiles_out[o][lane][row] = ring[s][row][lane];
        }
        cde::fence_proxy_async_shared_cta();
        // The other output tile's store (the previous tile's) has been read.
        if (leader) cde::cp_async_bulk_wait_group_read<0>();
        // Every thread has read stage s and written tile o; the other tile
        // is free.
        __syncthreads();
        load(s);
        if (leader) {
            int r0 = k / across * TILE, c0 = k % across * TILE;
            cde::cp_async_bulk_tensor_2d_shared_to_global(out, r0, c0, &tiles_out[o]);
            cde::cp_async_bulk_commit_group();
        }
        s = (s + 1) % STAGES;
        o ^= 1;
    }
    // The last store has been read before the block's shared memory goes.
    if (leader) cde::cp_async_bulk_wait_group_read<0>();
}
