// CUDA C++ twins of coop's split-barrier example kernels
// (examples/kernels/src/split_barrier.rs), with the same entry names and
// parameters, written with cooperative groups' barrier_arrive/barrier_wait
// and sync. split_barrier_bench loads the PTX nvcc makes of this file
// (COOP_CUDA_PTX) and times both sides in turns.
#include <cooperative_groups.h>
#include <cstddef>

namespace cg = cooperative_groups;

__device__ __forceinline__ unsigned work(unsigned x, unsigned units) {
    for (unsigned i = 0; i < units * 64; ++i) x = (x ^ (x >> 13)) * 0x5bd1e995u;
    return x;
}

__device__ size_t grid_rank() {
    size_t b = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    return b * (blockDim.x * blockDim.y * blockDim.z) + cg::this_thread_block().thread_rank();
}

template <bool Split>
__device__ unsigned rounds(unsigned count) {
    __shared__ unsigned slots[2048];
    cg::thread_block block = cg::this_thread_block();
    size_t n = block.size(), t = block.thread_rank();
    unsigned w = t / 32, x = t;
    for (unsigned r = 0; r < count; ++r) {
        x = work(x, (w + r) % 4);
        size_t base = (r % 2) * 1024;
        slots[base + t] = x;
        if (Split) {
            auto arrival = block.barrier_arrive();
            x = work(x, 1);
            block.barrier_wait(static_cast<decltype(arrival)&&>(arrival));
        } else {
            block.sync();
            x = work(x, 1);
        }
        x ^= slots[base + (t + 1) % n];
    }
    return x;
}

extern "C" __global__ void rounds_split(unsigned count, unsigned* out, size_t out_len) {
    out[grid_rank()] = rounds<true>(count);
}

extern "C" __global__ void rounds_sync(unsigned count, unsigned* out, size_t out_len) {
    out[grid_rank()] = rounds<false>(count);
}
