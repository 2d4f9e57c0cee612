// CUDA twins of coop-test-kernels' `inboxes::inbox_reduce_sum_u32` and
// `inboxes::inbox_pass_2d_f32`, compiled by nvcc at test time
// (tests/gpu.rs): whole shared arrays combined into, or copied into,
// another block's shared memory by the copy engine
// (`cp.reduce.async.bulk.shared::cluster.shared::cta`,
// `cp.async.bulk.shared::cluster.shared::cta`), completing on an mbarrier
// in the receiving block that expects their bytes, in rounds separated by
// cluster barriers. An array a block sends to itself goes by its threads
// after the wait (its bytes completed on the barrier at once): the engine
// faults on that copy without clusters, and memcheck reports it in one.
// Written with the PTX instructions as CUDA C++ users write them in inline
// assembly; the parameters are coop's words (a slice or an output buffer is
// a pointer and a length).
#include <cooperative_groups.h>
#include <cstddef>

namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned shared_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void init_barrier(unsigned bar) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// The barrier's phase expects `bytes`; this thread's arrival is the one it
// counts.
__device__ __forceinline__ void expect_bytes(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

// `bytes` of the phase's expected bytes, written by the block's threads.
__device__ __forceinline__ void complete_bytes(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void wait_phase(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(done)
            : "r"(bar), "r"(parity)
            : "memory");
    }
}

// The same shared address in block `rank` of the cluster.
__device__ __forceinline__ unsigned in_block(unsigned address, unsigned rank) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
    return remote;
}

extern "C" __global__ void inbox_reduce_sum_u32(const unsigned* values, size_t values_len,
                                                const unsigned* targets, size_t targets_len,
                                                unsigned* out, size_t out_len) {
    __shared__ alignas(128) unsigned mine[64];
    __shared__ alignas(128) unsigned inbox[64];
    __shared__ alignas(8) unsigned long long bar;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = cluster.block_rank(), n = cluster.num_blocks();
    size_t b = blockIdx.x, blocks = gridDim.x;
    size_t c = b / n, clusters = blocks / n;
    unsigned t = threadIdx.x;
    unsigned b_addr = shared_address(&bar);
    if (t == 0) init_barrier(b_addr);
    for (size_t k = 0; k < targets_len; ++k) {
        mine[t] = values[(k * blocks + b) * 64 + t];
        inbox[t] = 0;
        // The engine reads `mine` and combines into `inbox`.
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (t == 0) expect_bytes(b_addr, targets[k] == r ? n * sizeof(mine) : 0);
        cluster.sync();
        unsigned to = targets[k];
        if (t == 0 && to == r) {
            complete_bytes(b_addr, sizeof(mine));
        } else if (t == 0) {
            asm volatile(
                "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], %2, [%3];"
                ::"r"(in_block(shared_address(inbox), to)), "r"(shared_address(mine)),
                "r"(unsigned(sizeof(mine))), "r"(in_block(b_addr, to))
                : "memory");
        }
        wait_phase(b_addr, k & 1);
        if (to == r) inbox[t] += mine[t];
        __syncthreads();
        if (targets[k] == r) out[(k * clusters + c) * 64 + t] = inbox[t];
        cluster.sync();
    }
}

extern "C" __global__ void inbox_pass_2d_f32(const float* values, size_t values_len,
                                             const unsigned* shifts, size_t shifts_len,
                                             float* out, size_t out_len) {
    __shared__ alignas(128) float held[8][16];
    __shared__ alignas(128) float inbox[8][16];
    __shared__ alignas(8) unsigned long long bar;
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = cluster.block_rank(), n = cluster.num_blocks();
    size_t b = blockIdx.x, blocks = gridDim.x;
    unsigned t = threadIdx.y * 16 + threadIdx.x;
    unsigned b_addr = shared_address(&bar);
    if (t == 0) init_barrier(b_addr);
    held[threadIdx.y][threadIdx.x] = values[b * 128 + t];
    for (size_t k = 0; k < shifts_len; ++k) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (t == 0) expect_bytes(b_addr, sizeof(inbox));
        cluster.sync();
        unsigned to = (r + shifts[k]) % n;
        if (t == 0 && to == r) {
            complete_bytes(b_addr, sizeof(held));
        } else if (t == 0) {
            asm volatile(
                "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                ::"r"(in_block(shared_address(inbox), to)), "r"(shared_address(held)),
                "r"(unsigned(sizeof(held))), "r"(in_block(b_addr, to))
                : "memory");
        }
        wait_phase(b_addr, k & 1);
        if (to == r) inbox[threadIdx.y][threadIdx.x] = held[threadIdx.y][threadIdx.x];
        __syncthreads();
        float x = inbox[threadIdx.y][threadIdx.x];
        out[(k * blocks + b) * 128 + t] = x;
        cluster.sync();
        held[threadIdx.y][threadIdx.x] = x;
    }
}
