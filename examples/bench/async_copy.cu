// CUDA C++ twins of coop's streaming kernels (examples/kernels/src/streaming.rs),
// with the same entry names and parameters: a slice is (pointer, length),
// an Out<f32> is (pointer, length). Written the way the CUDA Programming
// Guide's asynchronous-copy chapters write them: cooperative groups'
// memcpy_async and wait for one staged tile, cuda::pipeline for a ring of
// cp.async stages, and cuda::barrier with cuda::memcpy_async of 16-byte
// aligned sizes (the bulk-copy engine on sm_90) for a ring of bulk stages,
// and the copy engine's tensor loads and stores (cp.async.bulk.tensor) on
// the same tensor maps coop's kernel gets, for a ring of tensor stages.
// async_copy_bench loads the PTX nvcc makes of this file (COOP_CUDA_PTX).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/ptx>
#include <cuda.h>
#include <cstddef>

namespace cg = cooperative_groups;

constexpr int TILE = 2048;
constexpr int STAGES = 4;

__device__ inline size_t tile_len(size_t k, size_t n) {
    size_t start = k * TILE;
    return start + TILE <= n ? TILE : n - start;
}

extern "C" __global__ void stream_direct(const float* in, size_t n, float* out, size_t out_len) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i];
}

extern "C" __global__ void stream_staged(const float* in, size_t n, float* out, size_t out_len) {
    __shared__ alignas(16) float tile[TILE];
    cg::thread_block block = cg::this_thread_block();
    size_t tiles = (n + TILE - 1) / TILE;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        size_t len = tile_len(k, n);
        cg::memcpy_async(block, tile, in + k * TILE, sizeof(float) * len);
        cg::wait(block);
        for (size_t i = threadIdx.x; i < len; i += blockDim.x) out[k * TILE + i] = tile[i];
        block.sync();
    }
}

constexpr int WARP_RUN = 256;

// Each warp on its own: runs of WARP_RUN floats in a grid-stride loop
// through two rows of its own, memcpy_async on the warp and wait_prior<1>.
extern "C" __global__ void stream_tiles(const float* in, size_t n, float* out, size_t out_len) {
    __shared__ alignas(128) float a[8][WARP_RUN];
    __shared__ alignas(128) float b[8][WARP_RUN];
    cg::thread_block block = cg::this_thread_block();
    auto warp = cg::tiled_partition<32>(block);
    size_t runs = (n + WARP_RUN - 1) / WARP_RUN;
    size_t per_block = blockDim.x / 32;
    size_t stride = (size_t)gridDim.x * per_block;
    size_t k = (size_t)blockIdx.x * per_block + threadIdx.x / 32;
    float* rows[2] = {a[threadIdx.x / 32], b[threadIdx.x / 32]};
    auto len_of = [&](size_t r) -> size_t {
        size_t s = r * WARP_RUN < n ? r * WARP_RUN : n;
        return (s + WARP_RUN < n ? s + WARP_RUN : n) - s;
    };
    auto fill = [&](float* row, size_t r) {
        cg::memcpy_async(warp, row, in + (r * WARP_RUN < n ? r * WARP_RUN : n), sizeof(float) * len_of(r));
    };
    fill(rows[0], k);
    fill(rows[1], k + stride);
    int now = 0;
    while (k < runs) {
        cg::wait_prior<1>(warp);
        float* row = rows[now];
        size_t len = len_of(k);
        for (size_t i = warp.thread_rank(); i < len; i += 32) out[k * WARP_RUN + i] = row[i];
        warp.sync();
        fill(row, k + 2 * stride);
        now ^= 1;
        k += stride;
    }
    cg::wait(warp);
}

extern "C" __global__ void stream_pipeline(const float* in, size_t n, float* out, size_t out_len) {
    __shared__ alignas(128) float ring[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    cg::thread_block block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    size_t tiles = (n + TILE - 1) / TILE;
    size_t next_load = blockIdx.x;
    auto load = [&](int s) {
        pipe.producer_acquire();
        if (next_load < tiles) {
            size_t len = tile_len(next_load, n);
            const float* src = in + next_load * TILE;
            if (len == TILE)
                cuda::memcpy_async(block, ring[s], src, cuda::aligned_size_t<16>(sizeof(float) * TILE), pipe);
            else
                cuda::memcpy_async(block, ring[s], src, sizeof(float) * len, pipe);
        }
        pipe.producer_commit();
        next_load += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int s = 0;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        pipe.consumer_wait();
        size_t len = tile_len(k, n);
        for (size_t i = threadIdx.x; i < len; i += blockDim.x) out[k * TILE + i] = ring[s][i];
        pipe.consumer_release();
        load(s);
        s = (s + 1) % STAGES;
    }
}

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// Tile k (of Tile floats) of `in` into `stage`, completing on `full`: a
// whole tile by the bulk-copy engine, thread 0 issuing it and arriving with
// its byte count; the partial last tile by the block's loads. Returns the
// calling thread's arrival token. stream_bulk, stream_engine and
// stencil_bulk load their rings through it.
template <int Tile>
__device__ inline block_barrier::arrival_token bulk_load(float* stage, block_barrier& full, const float* in, size_t n,
                                                         size_t k) {
    size_t start = k * Tile;
    size_t len = start + Tile <= n ? Tile : n - start;
    const float* src = in + start;
    if (len == Tile) {
        if (threadIdx.x == 0) {
            cuda::device::memcpy_async_tx(stage, src, cuda::aligned_size_t<16>(sizeof(float) * Tile), full);
            return cuda::device::barrier_arrive_tx(full, 1, sizeof(float) * Tile);
        }
        return full.arrive();
    }
    for (size_t i = threadIdx.x; i < len; i += blockDim.x) stage[i] = src[i];
    __syncthreads();
    return full.arrive();
}

extern "C" __global__ void stream_bulk(const float* in, size_t n, float* out, size_t out_len) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ alignas(128) float ring[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) init(&full[s], blockDim.x);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();
    size_t tiles = (n + TILE - 1) / TILE;
    size_t next_load = blockIdx.x;
    barrier::arrival_token token[STAGES];
    auto load = [&](int s) {
        if (next_load < tiles) token[s] = bulk_load<TILE>(ring[s], full[s], in, n, next_load);
        next_load += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int s = 0;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        full[s].wait(cuda::std::move(token[s]));
        size_t len = tile_len(k, n);
        for (size_t i = threadIdx.x; i < len; i += blockDim.x) out[k * TILE + i] = ring[s][i];
        __syncthreads();
        load(s);
        s = (s + 1) % STAGES;
    }
}

// Both ways by the bulk-copy engine, as coop's stream_engine: tiles of 4 KiB,
// a ring of four, each stage stored from shared memory by the engine
// (cp.async.bulk shared -> global, one bulk group a tile) and refilled once
// the engine has read it (cp.async.bulk.wait_group.read 0). One warp a
// block, its first thread issuing; a partial last tile by the warp's stores.
constexpr int ENGINE_TILE = 1024;

extern "C" __global__ void stream_engine(const float* in, size_t n, float* out, size_t out_len) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ alignas(128) float ring[STAGES][ENGINE_TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) init(&full[s], blockDim.x);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();
    size_t tiles = (n + ENGINE_TILE - 1) / ENGINE_TILE;
    auto len_of = [&](size_t k) { return k * ENGINE_TILE + ENGINE_TILE <= n ? (size_t)ENGINE_TILE : n - k * ENGINE_TILE; };
    size_t next_load = blockIdx.x;
    barrier::arrival_token token[STAGES];
    auto load = [&](int s) {
        if (next_load < tiles) token[s] = bulk_load<ENGINE_TILE>(ring[s], full[s], in, n, next_load);
        next_load += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int s = 0;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        full[s].wait(cuda::std::move(token[s]));
        size_t len = len_of(k);
        if (len == ENGINE_TILE) {
            if (threadIdx.x == 0) {
                cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, out + k * ENGINE_TILE, ring[s],
                                         sizeof(float) * ENGINE_TILE);
                cuda::ptx::cp_async_bulk_commit_group();
                cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
            }
        } else {
            for (size_t i = threadIdx.x; i < len; i += blockDim.x) out[k * ENGINE_TILE + i] = ring[s][i];
        }
        __syncthreads();
        load(s);
        s = (s + 1) % STAGES;
    }
}

// A warp-specialized ring: warp 0's first thread moves each tile by the
// bulk-copy engine once the consumers released its stage (barrier
// "empty"), the block's other threads store the tiles once landed
// (barrier "full"), each side waiting on phase parities.
__device__ inline void wait_parity(cuda::barrier<cuda::thread_scope_block>& b, unsigned parity) {
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::device::barrier_native_handle(b), parity)) {}
}

extern "C" __global__ void stream_specialized(const float* in, size_t n, float* out, size_t out_len) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ alignas(128) float ring[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier empty[STAGES];
    unsigned consumers = blockDim.x - 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            init(&full[s], 1);
            init(&empty[s], consumers);
        }
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();
    size_t tiles = (n + TILE - 1) / TILE;
    int s = 0;
    unsigned round = 0;
    if (threadIdx.x < 32) {
        if (threadIdx.x != 0) return;
        for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
            if (round > 0) wait_parity(empty[s], (round - 1) & 1);
            size_t len = tile_len(k, n);
            const float* src = in + k * TILE;
            if (len == TILE) {
                cuda::device::memcpy_async_tx(ring[s], src, cuda::aligned_size_t<16>(sizeof(float) * TILE), full[s]);
                (void)cuda::device::barrier_arrive_tx(full[s], 1, sizeof(float) * TILE);
            } else {
                for (size_t i = 0; i < len; ++i) ring[s][i] = src[i];
                (void)full[s].arrive();
            }
            if (++s == STAGES) { s = 0; ++round; }
        }
        return;
    }
    unsigned t = threadIdx.x - 32;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        wait_parity(full[s], round & 1);
        size_t len = tile_len(k, n);
        for (size_t i = t; i < len; i += consumers) out[k * TILE + i] = ring[s][i];
        (void)empty[s].arrive();
        if (++s == STAGES) { s = 0; ++round; }
    }
}

// The same roles through a partitioned cuda::pipeline: warp 0 the producer,
// each of its threads copying its 16-byte chunks of a tile with
// cuda::memcpy_async (cp.async), the block's other threads the consumers.
extern "C" __global__ void stream_specialized_threads(const float* in, size_t n, float* out, size_t out_len) {
    __shared__ alignas(128) float ring[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    cg::thread_block block = cg::this_thread_block();
    bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state,
                                    producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    size_t tiles = (n + TILE - 1) / TILE;
    int s = 0;
    if (producer) {
        for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
            pipe.producer_acquire();
            size_t len = tile_len(k, n);
            const float* src = in + k * TILE;
            for (size_t c = threadIdx.x; 4 * c < len; c += 32)
                cuda::memcpy_async(&ring[s][4 * c], src + 4 * c, cuda::aligned_size_t<16>(16), pipe);
            pipe.producer_commit();
            s = (s + 1) % STAGES;
        }
        return;
    }
    unsigned consumers = blockDim.x - 32;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        pipe.consumer_wait();
        size_t len = tile_len(k, n);
        for (size_t i = threadIdx.x - 32; i < len; i += consumers) out[k * TILE + i] = ring[s][i];
        pipe.consumer_release();
        s = (s + 1) % STAGES;
    }
}

// Tiles of 8 rows of 256 floats, loaded and stored by the copy engine; the
// maps are the host's, copied into global memory (as coop passes them).
extern "C" __global__ void stream_tensor(const CUtensorMap* in, const CUtensorMap* out, unsigned rows) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    namespace cde = cuda::device::experimental;
    namespace ptx = cuda::ptx;
    constexpr int ROWS = 8, COLS = 256;
    __shared__ alignas(128) float ring[STAGES][ROWS][COLS];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) init(&full[s], blockDim.x);
        cde::fence_proxy_async_shared_cta();
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, in, ptx::n32_t<128>());
        ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_sys, out, ptx::n32_t<128>());
    }
    __syncthreads();
    size_t tiles = (rows + ROWS - 1) / ROWS;
    size_t next_load = blockIdx.x;
    barrier::arrival_token token[STAGES];
    auto load = [&](int s) {
        if (next_load < tiles) {
            if (threadIdx.x == 0) {
                cde::cp_async_bulk_tensor_2d_global_to_shared(&ring[s], in, 0, (int)(next_load * ROWS), full[s]);
                token[s] = cuda::device::barrier_arrive_tx(full[s], 1, sizeof(ring[s]));
            } else {
                token[s] = full[s].arrive();
            }
        }
        next_load += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int s = 0;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        full[s].wait(cuda::std::move(token[s]));
        if (threadIdx.x == 0) {
            cde::cp_async_bulk_tensor_2d_shared_to_global(out, 0, (int)(k * ROWS), &ring[s]);
            cde::cp_async_bulk_commit_group();
            // The copy engine has read the stage before thread 0 refills it.
            cde::cp_async_bulk_wait_group_read<0>();
        }
        load(s);
        s = (s + 1) % STAGES;
    }
}

// The smoothing stencil b[k] = (a[k-1] + 2 a[k] + a[k+1]) / 4 (zeros outside
// the array), twins of coop's `stencil::smooth_global` (the tutorial's global
// memory version, a thread an output) and `streaming::stencil_bulk` (tiles
// through stream_bulk's ring of bulk copies, the two halo inputs of a tile
// read from global memory).
extern "C" __global__ void smooth_global(const float* a, size_t n, float* b, size_t b_len) {
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        float left = k > 0 ? a[k - 1] : 0.0f;
        float right = k + 1 < n ? a[k + 1] : 0.0f;
        b[k] = (left + 2.0f * a[k] + right) * 0.25f;
    }
}

extern "C" __global__ void stencil_bulk(const float* in, size_t n, float* out, size_t out_len) {
    using barrier = cuda::barrier<cuda::thread_scope_block>;
    __shared__ alignas(128) float ring[STAGES][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier full[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) init(&full[s], blockDim.x);
        cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    }
    __syncthreads();
    size_t tiles = (n + TILE - 1) / TILE;
    size_t next_load = blockIdx.x;
    barrier::arrival_token token[STAGES];
    auto load = [&](int s) {
        if (next_load < tiles) token[s] = bulk_load<TILE>(ring[s], full[s], in, n, next_load);
        next_load += gridDim.x;
    };
    for (int s = 0; s < STAGES; ++s) load(s);
    int s = 0;
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        full[s].wait(cuda::std::move(token[s]));
        size_t base = k * TILE, len = tile_len(k, n);
        for (size_t i = threadIdx.x; i < len; i += blockDim.x) {
            float left = i > 0 ? ring[s][i - 1] : (base > 0 ? in[base - 1] : 0.0f);
            float right = i + 1 < len ? ring[s][i + 1] : (base + i + 1 < n ? in[base + i + 1] : 0.0f);
            out[base + i] = (left + 2.0f * ring[s][i] + right) * 0.25f;
        }
        __syncthreads();
        load(s);
        s = (s + 1) % STAGES;
    }
}
