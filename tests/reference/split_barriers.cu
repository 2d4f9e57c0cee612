// CUDA twins of coop-test-kernels' `split_barriers` kernels, written with
// cooperative groups' `barrier_arrive` and `barrier_wait`, compiled by nvcc
// at test time (tests/gpu.rs). Each entry point has the name and the
// parameters (pointer, length pairs) of the Rust kernel it checks.
#include <cooperative_groups.h>
#include <cstddef>

namespace cg = cooperative_groups;

__device__ size_t block_index() {
    return blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
}

__device__ size_t grid_rank() {
    cg::thread_block block = cg::this_thread_block();
    return block_index() * block.num_threads() + block.thread_rank();
}

extern "C" __global__ void split_rounds(const unsigned* input, size_t input_len, unsigned* out,
                                        size_t out_len) {
    __shared__ unsigned slots[2048];
    cg::thread_block block = cg::this_thread_block();
    size_t n = block.size();
    size_t t = block.thread_rank();
    size_t g = grid_rank();
    unsigned mine = input[g];
    unsigned acc = 0;
    for (unsigned r = 0; r < 5; ++r) {
        size_t base = (r % 2) * 1024;
        slots[base + t] = mine + r;
        auto arrival = block.barrier_arrive();
        acc = acc * 31 + (mine ^ r);
        block.barrier_wait(static_cast<decltype(arrival)&&>(arrival));
        unsigned a = slots[base + (t + 1) % n];
        unsigned b = slots[base + (t + 33) % n];
        acc = acc + a + ((b << 3) | (b >> 29));
    }
    out[g] = acc;
}

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void cluster_split_rounds(unsigned* stage, size_t stage_len, unsigned* out,
                                                size_t out_len) {
    cg::cluster_group cluster = cg::this_cluster();
    size_t g = grid_rank();
    size_t b = block_index();
    size_t blocks = (size_t)gridDim.x * gridDim.y * gridDim.z;
    bool first = threadIdx.x + threadIdx.y + threadIdx.z == 0;
    for (size_t r = 0; r < 2; ++r) {
        if (first) stage[r * blocks + b] = 100 * (unsigned)b + 10 * (unsigned)r + cluster.block_rank();
        auto arrival = cluster.barrier_arrive();
        size_t base = b - cluster.block_rank();
        size_t partner = base + (cluster.block_rank() + 1) % cluster.num_blocks();
        cluster.barrier_wait(static_cast<decltype(arrival)&&>(arrival));
        out[2 * g + r] = stage[r * blocks + partner];
    }
}
#endif

extern "C" __global__ void grid_split_rounds(unsigned* stage, size_t stage_len, unsigned* out,
                                             size_t out_len) {
    cg::grid_group grid = cg::this_grid();
    size_t g = grid_rank();
    size_t b = block_index();
    size_t blocks = (size_t)gridDim.x * gridDim.y * gridDim.z;
    bool first = threadIdx.x + threadIdx.y + threadIdx.z == 0;
    for (size_t r = 0; r < 2; ++r) {
        if (first) stage[r * blocks + b] = 100 * (unsigned)b + 10 * (unsigned)r;
        auto arrival = grid.barrier_arrive();
        size_t partner = (b + 1) % blocks;
        grid.barrier_wait(static_cast<decltype(arrival)&&>(arrival));
        out[2 * g + r] = stage[r * blocks + partner];
    }
}
