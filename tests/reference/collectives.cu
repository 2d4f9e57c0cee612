// Reference implementations of coop-test-kernels, written with CUDA's own
// cooperative groups and compiled by nvcc at test time. Every entry point
// has the name and the parameters (pointer, length pairs) of the Rust kernel
// it checks, so the test launches both through the same typed descriptor and
// compares the outputs bit for bit.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstddef>

namespace cg = cooperative_groups;

struct Triple {
    unsigned x;
    int y;
    unsigned z;
};

// The thread's rank in the grid, as coop's Grid::thread_rank.
__device__ size_t grid_rank() {
    cg::thread_block block = cg::this_thread_block();
    size_t block_rank = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    return block_rank * block.num_threads() + block.thread_rank();
}

template <typename T, unsigned N>
__device__ void shuffles(const T* in, const unsigned* params, T* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    size_t g = grid_rank();
    T v = in[g];
    const unsigned* p = params + 4 * g;
    out[4 * g + 0] = tile.shfl(v, p[0]);
    out[4 * g + 1] = tile.shfl_up(v, p[1]);
    out[4 * g + 2] = tile.shfl_down(v, p[2]);
    out[4 * g + 3] = tile.shfl_xor(v, p[3]);
}

template <unsigned N>
__device__ void votes(const unsigned* pred, unsigned* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    size_t g = grid_rank();
    int p = pred[g] != 0;
    out[4 * g + 0] = tile.any(p) ? 1u : 0u;
    out[4 * g + 1] = tile.all(p) ? 1u : 0u;
    out[4 * g + 2] = tile.ballot(p);
    out[4 * g + 3] = 0;
}

template <typename T, unsigned N>
__device__ void matches(const T* in, unsigned* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    size_t g = grid_rank();
    T v = in[g];
    out[3 * g + 0] = tile.match_any(v);
    int pred = 0;
    unsigned all = tile.match_all(v, pred);
    out[3 * g + 1] = pred ? all : 0u;
    out[3 * g + 2] = pred ? 1u : 0u;
}

constexpr int RANK_FIELDS = 20;

template <unsigned N>
__device__ void ranks(unsigned* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    // CUDA only partitions a tile into smaller tiles; for N = 32 the
    // "sub-tile" is the warp tile itself, as in the Rust kernel.
    auto sub = [&] {
        if constexpr (N < 32) return cg::tiled_partition<N>(warp);
        else return warp;
    }();
    size_t g = grid_rank();
    dim3 t = block.thread_index(), b = block.group_index(), d = block.dim_threads();
    unsigned fields[RANK_FIELDS] = {
        block.thread_rank(), block.num_threads(), t.x, t.y, t.z, b.x, b.y, b.z, d.x, d.y, d.z,
        tile.thread_rank(), tile.num_threads(), tile.meta_group_rank(), tile.meta_group_size(),
        sub.thread_rank(), sub.num_threads(), sub.meta_group_rank(), sub.meta_group_size(), 1};
    tile.sync();
    block.sync();
    for (int k = 0; k < RANK_FIELDS; ++k) out[RANK_FIELDS * g + k] = fields[k];
}

#define SHUFFLES(name, T, N)                                                                 \
    extern "C" __global__ void name(const T* in, size_t in_len, const unsigned* params,     \
                                    size_t params_len, T* out, size_t out_len) {            \
        shuffles<T, N>(in, params, out);                                                    \
    }
#define SHUFFLES_ALL_SIZES(T, tag)                                                           \
    SHUFFLES(shuffles_##tag##_1, T, 1)                                                       \
    SHUFFLES(shuffles_##tag##_2, T, 2)                                                       \
    SHUFFLES(shuffles_##tag##_4, T, 4)                                                       \
    SHUFFLES(shuffles_##tag##_8, T, 8)                                                       \
    SHUFFLES(shuffles_##tag##_16, T, 16)                                                     \
    SHUFFLES(shuffles_##tag##_32, T, 32)

SHUFFLES_ALL_SIZES(unsigned, u32)
SHUFFLES_ALL_SIZES(long long, i64)
SHUFFLES_ALL_SIZES(float, f32)
SHUFFLES_ALL_SIZES(double, f64)
SHUFFLES_ALL_SIZES(Triple, triple)

#define VOTES(N)                                                                             \
    extern "C" __global__ void votes_##N(const unsigned* pred, size_t pred_len, unsigned* out, \
                                         size_t out_len) {                                   \
        votes<N>(pred, out);                                                                 \
    }
VOTES(1) VOTES(2) VOTES(4) VOTES(8) VOTES(16) VOTES(32)

#define MATCHES(name, T, N)                                                                  \
    extern "C" __global__ void name(const T* in, size_t in_len, unsigned* out, size_t out_len) { \
        matches<T, N>(in, out);                                                              \
    }
#define MATCHES_ALL_SIZES(T, tag)                                                            \
    MATCHES(matches_##tag##_1, T, 1)                                                         \
    MATCHES(matches_##tag##_2, T, 2)                                                         \
    MATCHES(matches_##tag##_4, T, 4)                                                         \
    MATCHES(matches_##tag##_8, T, 8)                                                         \
    MATCHES(matches_##tag##_16, T, 16)                                                       \
    MATCHES(matches_##tag##_32, T, 32)

MATCHES_ALL_SIZES(unsigned, u32)
MATCHES_ALL_SIZES(long long, i64)
MATCHES_ALL_SIZES(float, f32)
MATCHES_ALL_SIZES(double, f64)

#define RANKS(N)                                                                             \
    extern "C" __global__ void ranks_##N(unsigned* out, size_t out_len) { ranks<N>(out); }
RANKS(1) RANKS(2) RANKS(4) RANKS(8) RANKS(16) RANKS(32)

// The twin of coop-test-kernels' `grids::grid_steps`: the grid's ranks,
// then rounds of a wrapping three-point stencil with a grid sync after
// each. Launched cooperatively (the descriptor is a `#[kernel(cooperative)]`).
constexpr int GRID_FIELDS = 6;

extern "C" __global__ void grid_steps(unsigned steps, unsigned* a, size_t a_len, unsigned* b,
                                      size_t b_len, unsigned* ranks, size_t ranks_len) {
    cg::grid_group grid = cg::this_grid();
    unsigned long long g = grid.thread_rank();
    unsigned fields[GRID_FIELDS] = {(unsigned)g,
                                    (unsigned)grid.num_threads(),
                                    (unsigned)grid.block_rank(),
                                    (unsigned)grid.num_blocks(),
                                    grid.dim_blocks().x,
                                    grid.is_valid() ? 1u : 0u};
    for (int k = 0; k < GRID_FIELDS; ++k) ranks[GRID_FIELDS * g + k] = fields[k];
    size_t n = a_len;
    for (unsigned s = 0; s < steps; ++s) {
        unsigned* src = s % 2 == 0 ? a : b;
        unsigned* dst = s % 2 == 0 ? b : a;
        for (size_t i = g; i < n; i += grid.num_threads()) {
            dst[i] = src[(i + n - 1) % n] + 3u * src[i] + src[(i + 1) % n];
        }
        grid.sync();
    }
}

// The twin of coop-test-kernels' `dynamic::partitions`.
constexpr int PARTITION_FIELDS = 16;

extern "C" __global__ void partitions(const unsigned* values, size_t values_len,
                                      const unsigned* preds, size_t preds_len,
                                      const unsigned* labels, size_t labels_len, unsigned* out,
                                      size_t out_len) {
    cg::thread_block block = cg::this_thread_block();
    size_t g = grid_rank();
    unsigned v = values[g];
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::coalesced_group bin = cg::binary_partition(warp, preds[g] != 0);
    unsigned last = bin.num_threads() - 1;
    unsigned f[PARTITION_FIELDS];
    f[0] = bin.thread_rank();
    f[1] = bin.num_threads();
    f[2] = bin.shfl(v, last);
    f[3] = bin.shfl_up(v, 2);
    f[4] = bin.shfl_down(v, 3);
    f[5] = bin.ballot(v % 3 == 0);
    f[6] = bin.any(v % 5 == 0) ? 1u : 0u;
    f[7] = bin.all(v % 2 == 0) ? 1u : 0u;
    f[8] = cg::reduce(bin, v, cg::plus<unsigned>());
    f[9] = cg::inclusive_scan(bin, v, cg::plus<unsigned>());
    cg::coalesced_group lab = cg::labeled_partition(warp, labels[g]);
    unsigned long long wide = cg::reduce(lab, (unsigned long long)v * 3, cg::plus<unsigned long long>());
    unsigned before = cg::exclusive_scan(lab, v, cg::plus<unsigned>());
    f[10] = lab.thread_rank();
    f[11] = lab.num_threads();
    f[12] = lab.match_any(v % 4);
    f[13] = (unsigned)wide ^ (unsigned)(wide >> 32);
    f[14] = lab.thread_rank() == 0 ? 0u : before;
    int all_equal = 0;
    lab.match_all(v / 100, all_equal);
    f[15] = all_equal ? 1u : 0u;
    for (int k = 0; k < PARTITION_FIELDS; ++k) out[PARTITION_FIELDS * g + k] = f[k];
}

// The twin of coop-test-kernels' `dynamic::compact_even`.
extern "C" __global__ void compact_even(const unsigned* input, size_t n, unsigned* count,
                                        size_t count_len, unsigned* out, size_t out_len) {
    size_t i = grid_rank();
    if (i < n && input[i] % 2 == 0) {
        cg::coalesced_group group = cg::coalesced_threads();
        unsigned base = 0;
        if (group.thread_rank() == 0) base = atomicAdd(count, group.num_threads());
        base = group.shfl(base, 0);
        out[base + group.thread_rank()] = input[i];
    }
}

// The twin of coop-test-kernels' `clusters::cluster_ranks` (sm_90).
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void cluster_ranks(unsigned* stage, size_t stage_len, unsigned* out,
                                         size_t out_len) {
    cg::cluster_group cluster = cg::this_cluster();
    size_t g = grid_rank();
    size_t b = blockIdx.x + (size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z);
    if (threadIdx.x + threadIdx.y + threadIdx.z == 0) stage[b] = 100 * (unsigned)b + cluster.block_rank();
    cluster.sync();
    size_t base = b - cluster.block_rank();
    size_t next = base + (cluster.block_rank() + 1) % cluster.num_blocks();
    unsigned f[10] = {cluster.block_rank(), cluster.num_blocks(), cluster.dim_blocks().x,
                      cluster.block_index().x, cluster.thread_rank(), cluster.num_threads(),
                      stage[next], 1, cluster.thread_index().x, cluster.dim_threads().x};
    for (int k = 0; k < 10; ++k) out[10 * g + k] = f[k];
}
#endif

// The twin of coop-test-kernels' `clusters::cluster_grid_rounds` (sm_90):
// a cooperative launch in clusters, `grid.sync()` beside `cluster.sync()`
// and `map_shared_rank`. Blocks of 64 threads.
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void cluster_grid_rounds(unsigned rounds, unsigned* sums, size_t sums_len,
                                               unsigned* out, size_t out_len) {
    __shared__ unsigned values[64];
    cg::grid_group grid = cg::this_grid();
    cg::cluster_group cluster = cg::this_cluster();
    unsigned b = blockIdx.x, t = threadIdx.x;
    unsigned n = cluster.num_blocks();
    unsigned clusters = gridDim.x / n, c = b / n;
    unsigned mine = 1000 * b + t;
    for (unsigned round = 0; round < rounds; ++round) {
        values[t] = mine;
        cluster.sync();
        if (cluster.block_rank() == 0) {
            unsigned sum = 0;
            for (unsigned p = 0; p < n; ++p) sum += cluster.map_shared_rank(values, p)[t];
            sums[(round * clusters + c) * 64 + t] = sum;
        }
        cluster.sync();
        grid.sync();
        mine = sums[(round * clusters + (c + 1) % clusters) * 64 + t] + cluster.block_rank();
    }
    out[64 * b + t] = mine;
}
#endif

// Twins of coop-test-kernels' `clusters::dsm_rotate` and
// `clusters::dsm_histogram` (sm_90): distributed shared memory through
// `cluster.map_shared_rank`.
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void dsm_rotate(unsigned* out, size_t out_len) {
    __shared__ unsigned s[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = threadIdx.x;
    unsigned b = blockIdx.x;
    s[r] = 1000 * b + r;
    cluster.sync();
    unsigned from = (cluster.block_rank() + 1 + r % 3) % cluster.num_blocks();
    unsigned* theirs = cluster.map_shared_rank(s, from);
    out[grid_rank()] = theirs[r];
    cluster.sync();
}

extern "C" __global__ void dsm_histogram(const unsigned* input, size_t n, unsigned* bins,
                                         size_t bins_len) {
    __shared__ unsigned part[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned blocks = cluster.num_blocks();
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x) part[k] = 0;
    cluster.sync();
    for (size_t i = grid_rank(); i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned bin = input[i] % (256 * blocks);
        unsigned* owner = cluster.map_shared_rank(part, bin / 256);
        atomicAdd(owner + bin % 256, 1u);
    }
    cluster.sync();
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x)
        if (part[k] != 0) atomicAdd(bins + cluster.block_rank() * 256 + k, part[k]);
}
#endif

#if __CUDA_ARCH__ >= 900
extern "C" __global__ void dsm_pass_on(unsigned* out, size_t out_len) {
    __shared__ unsigned s[128];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned r = threadIdx.x;
    cluster.sync();
    unsigned next = (cluster.block_rank() + 1) % cluster.num_blocks();
    cluster.map_shared_rank(s, next)[r] = 1000 * blockIdx.x + r;
    cluster.sync();
    out[grid_rank()] = s[r];
}
#endif
