// CUDA twin of coop-test-kernels' `async_copies::cluster_windows`, compiled
// by nvcc at test time (tests/gpu.rs): the clusters walk windows of
// `blocks x 128` values in a grid-stride loop, block `r` copying part `r`
// of the window with cooperative groups' `memcpy_async` on the block into
// one of two arrays that take turns; `wait_prior<1>` on the block and the
// cluster's barrier make every block's part readable, and each thread
// reads the mirror element from the block that holds it
// (`map_shared_rank`). A second cluster barrier ends the reads before the
// array is refilled. `memcpy_async` has no zero-filling form, so the
// block's threads store the zeros of a partial part.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstddef>

namespace cg = cooperative_groups;

extern "C" __global__ void cluster_windows(const unsigned* input, size_t input_len, unsigned offset,
                                           unsigned* out, size_t) {
    __shared__ __align__(16) unsigned a[128];
    __shared__ __align__(16) unsigned b[128];
    cg::thread_block block = cg::this_thread_block();
    cg::cluster_group cluster = cg::this_cluster();
    size_t blocks = cluster.num_blocks();
    size_t width = blocks * 128;
    size_t skip = offset < input_len ? offset : input_len;
    const unsigned* data = input + skip;
    size_t len = input_len - skip;
    size_t windows = (len + width - 1) / width;
    size_t r = cluster.block_rank();
    size_t clusters = gridDim.x / blocks;
    size_t w = blockIdx.x / blocks;
    unsigned* parts[2] = {a, b};
    auto fill = [&](unsigned* part, size_t v) {
        size_t s = v * width + r * 128 < len ? v * width + r * 128 : len;
        size_t e = s + 128 < len ? s + 128 : len;
        cg::memcpy_async(block, part, data + s, (e - s) * sizeof(unsigned));
        for (size_t j = (e - s) + block.thread_rank(); j < 128; j += block.size()) part[j] = 0;
    };
    fill(parts[0], w);
    fill(parts[1], w + clusters);
    int now = 0;
    while (w < windows) {
        cg::wait_prior<1>(block);
        cluster.sync();
        unsigned* part = parts[now];
        for (size_t j = block.thread_rank(); j < 128; j += block.size()) {
            size_t mirror = width - 1 - (r * 128 + j);
            const unsigned* other = cluster.map_shared_rank(part, (unsigned)(mirror / 128));
            out[w * width + r * 128 + j] = part[j] * 3u + other[mirror % 128];
        }
        cluster.sync();
        fill(part, w + 2 * clusters);
        now ^= 1;
        w += clusters;
    }
    cg::wait(block);
}
