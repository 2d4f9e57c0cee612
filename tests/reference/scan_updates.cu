// CUDA twin of coop-test-kernels' `async_copies::scan_updates`, compiled by
// nvcc at test time (tests/gpu.rs): cooperative groups'
// `exclusive_scan_update` and `inclusive_scan_update` over a warp and over
// coalesced threads. Cooperative groups has no scan over a whole block or a
// 64-thread tile, so those two lists are appended to one atomicAdd a
// thread (the test checks what each list holds, not its order).
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <cstddef>

namespace cg = cooperative_groups;

extern "C" __global__ void scan_updates(const unsigned* input, size_t input_len, unsigned* used,
                                        size_t used_len, unsigned* block_out, size_t block_len,
                                        unsigned* warp_out, size_t warp_len, unsigned* tile_out,
                                        size_t tile_len, unsigned* odd_out, size_t odd_len,
                                        unsigned* maxima, size_t maxima_len) {
    cg::thread_block block = cg::this_thread_block();
    size_t g = (size_t)blockIdx.x * block.size() + block.thread_rank();
    bool real = g < input_len;
    unsigned x = real ? input[g] : 0;
    bool keep = real && x % 3 == 0;
    if (keep) block_out[atomicAdd(&used[0], 1u)] = x;
    auto warp = cg::tiled_partition<32>(block);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> warp_count(used[1]);
    unsigned at = cg::exclusive_scan_update(warp, warp_count, (unsigned)keep, cg::plus<unsigned>());
    if (keep) warp_out[at] = x;
    if (keep) tile_out[atomicAdd(&used[2], 1u)] = x;
    if (real && x % 2 == 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> odd_count(used[3]);
        unsigned at = cg::exclusive_scan_update(odd, odd_count, 1u, cg::plus<unsigned>());
        odd_out[at] = x;
    }
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> maximum(used[4]);
    unsigned m = cg::inclusive_scan_update(warp, maximum, x, cg::greater<unsigned>());
    if (real) maxima[g] = m;
}
