// CUDA twins of coop-test-kernels' `tensor_copies::tensor_tiles_2d_f32` (and,
// at the end, of its warp-specialized `tensor_specialized_2d_f32`),
// compiled by nvcc at test time (tests/gpu.rs): tiles of 16 rows of 32
// floats loaded by the copy engine (`cp.async.bulk.tensor`) into shared
// memory on a `cuda::barrier`, from a tensor map the host encoded and
// copied into global memory, then written out element by element. One
// stage, where coop's kernel keeps two in flight: the test compares what
// lands, not the overlap.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cstddef>
#include <utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;
namespace ptx = cuda::ptx;

extern "C" __global__ void tensor_tiles_2d_f32(const CUtensorMap* map, const int* coords,
                                               size_t coords_len, float* out, size_t out_len) {
    __shared__ alignas(128) float tile[16][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
        // The map was copied from the host: acquire it for the copy engine.
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, map,
                                           ptx::n32_t<128>());
    }
    __syncthreads();
    size_t tiles = coords_len / 2;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        block_barrier::arrival_token token;
        if (threadIdx.x == 0) {
            // The map's coordinates are innermost first: column, then row.
            cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, map, coords[2 * k + 1],
                                                          coords[2 * k], bar);
            token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
        } else {
            token = bar.arrive();
        }
        bar.wait(std::move(token));
        for (int e = threadIdx.x; e < 16 * 32; e += blockDim.x) {
            size_t i = k * 512 + e;
            if (i < out_len) out[i] = (&tile[0][0])[e];
        }
        __syncthreads();
    }
}

// Twin of `tensor_copies::tensor_swizzled_128_f32`: the same tiles from a map
// encoded with CU_TENSOR_MAP_SWIZZLE_128B, into a 1024-byte aligned stage, read
// back with the programming guide's index relation for that mode: 16-byte chunk
// x of 128-byte row y lies at chunk y % 8 ^ x.
extern "C" __global__ void tensor_swizzled_128_f32(const CUtensorMap* map, const int* coords,
                                                   size_t coords_len, float* out,
                                                   size_t out_len) {
    __shared__ alignas(1024) float tile[16][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, map,
                                           ptx::n32_t<128>());
    }
    __syncthreads();
    size_t tiles = coords_len / 2;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        block_barrier::arrival_token token;
        if (threadIdx.x == 0) {
            cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, map, coords[2 * k + 1],
                                                          coords[2 * k], bar);
            token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
        } else {
            token = bar.arrive();
        }
        bar.wait(std::move(token));
        for (int e = threadIdx.x; e < 16 * 32; e += blockDim.x) {
            int y = e / 32, x = e % 32 / 4;
            size_t i = k * 512 + e;
            if (i < out_len) out[i] = tile[y][((y % 8) ^ x) * 4 + e % 4];
        }
        __syncthreads();
    }
}

// Twin of `tensor_copies::tensor_specialized_2d_f32`: the same tiles through
// a warp-specialized ring of three stages. Warp 0's first thread loads a
// stage once the consumers released it ("empty" barrier, the consumers'
// arrivals), the block's other threads write each tile out once it landed
// ("full" barrier: one arrival and the tile's bytes); each side waits on
// phase parities.
__device__ inline void wait_parity(block_barrier& b, unsigned parity) {
    while (!ptx::mbarrier_try_wait_parity(cuda::device::barrier_native_handle(b), parity)) {}
}

extern "C" __global__ void tensor_specialized_2d_f32(const CUtensorMap* map, const int* coords,
                                                     size_t coords_len, float* out,
                                                     size_t out_len) {
    constexpr int STAGES = 3;
    __shared__ alignas(128) float ring[STAGES][16][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier full[STAGES];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier empty[STAGES];
    unsigned consumers = blockDim.x - 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            init(&full[s], 1);
            init(&empty[s], consumers);
        }
        cde::fence_proxy_async_shared_cta();
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, map,
                                           ptx::n32_t<128>());
    }
    __syncthreads();
    size_t tiles = coords_len / 2;
    int s = 0;
    unsigned round = 0;
    if (threadIdx.x < 32) {
        if (threadIdx.x != 0) return;
        for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
            if (round > 0) wait_parity(empty[s], (round - 1) & 1);
            cde::cp_async_bulk_tensor_2d_global_to_shared(&ring[s], map, coords[2 * k + 1],
                                                          coords[2 * k], full[s]);
            (void)cuda::device::barrier_arrive_tx(full[s], 1, sizeof(ring[s]));
            if (++s == STAGES) { s = 0; ++round; }
        }
        return;
    }
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        wait_parity(full[s], round & 1);
        for (unsigned e = threadIdx.x - 32; e < 16 * 32; e += consumers) {
            size_t i = k * 512 + e;
            if (i < out_len) out[i] = (&ring[s][0][0])[e];
        }
        (void)empty[s].arrive();
        if (++s == STAGES) { s = 0; ++round; }
    }
}
