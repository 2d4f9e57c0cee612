// CUDA C++ twin of coop's port of NVIDIA's integral-image kernels (the
// shfl_scan sample's shfl_intimage_rows and shfl_vertical_shfl;
// coop's port is examples/kernels/src/integral_image.rs). The kernels'
// bodies follow the sample: 120-thread row blocks whose last warp is
// partial, the xor swizzle of the stores, and the column pass's 135 steps
// of three barriers. Entry names match coop's kernels and the parameter
// lists take coop's words (each slice a pointer and a length), so that
// integral_image_bench launches both through the same descriptors
// (COOP_CUDA_PTX names the PTX nvcc makes of this file).
#include <cooperative_groups.h>
#include <cstddef>
#include <cstring>

namespace cg = cooperative_groups;

struct packed_result {
    uint4 x, y, z, w;
};

__device__ uchar4 bytes_of(unsigned int in) {
    return make_uchar4(in & 0xff, (in >> 8) & 0xff, (in >> 16) & 0xff, in >> 24);
}

__device__ packed_result get_prefix_sum(const uint4& data, const cg::thread_block& cta) {
    const auto tile = cg::tiled_partition<32>(cta);
    __shared__ unsigned int sums[128];
    const unsigned int lane_id = tile.thread_rank();
    const unsigned int warp_id = tile.meta_group_rank();
    unsigned int result[16] = {};
    {
        const uchar4 a = bytes_of(data.x), b = bytes_of(data.y), c = bytes_of(data.z),
                     d = bytes_of(data.w);
        result[0] = a.x;
        result[1] = a.x + a.y;
        result[2] = a.x + a.y + a.z;
        result[3] = a.x + a.y + a.z + a.w;
        result[4] = b.x;
        result[5] = b.x + b.y;
        result[6] = b.x + b.y + b.z;
        result[7] = b.x + b.y + b.z + b.w;
        result[8] = c.x;
        result[9] = c.x + c.y;
        result[10] = c.x + c.y + c.z;
        result[11] = c.x + c.y + c.z + c.w;
        result[12] = d.x;
        result[13] = d.x + d.y;
        result[14] = d.x + d.y + d.z;
        result[15] = d.x + d.y + d.z + d.w;
    }
#pragma unroll
    for (unsigned int i = 4; i <= 7; i++) result[i] += result[3];
#pragma unroll
    for (unsigned int i = 8; i <= 11; i++) result[i] += result[7];
#pragma unroll
    for (unsigned int i = 12; i <= 15; i++) result[i] += result[11];
    unsigned int sum = result[15];
#pragma unroll
    for (unsigned int i = 1; i < 32; i *= 2) {
        const unsigned int n = tile.shfl_up(sum, i);
        if (lane_id >= i) {
#pragma unroll
            for (unsigned int j = 0; j < 16; j++) result[j] += n;
            sum += n;
        }
    }
    if (tile.thread_rank() == (tile.size() - 1)) sums[warp_id] = result[15];
    __syncthreads();
    if (warp_id == 0) {
        unsigned int warp_sum = sums[lane_id];
#pragma unroll
        for (unsigned int i = 1; i <= 16; i *= 2) {
            const unsigned int n = tile.shfl_up(warp_sum, i);
            if (lane_id >= i) warp_sum += n;
        }
        sums[lane_id] = warp_sum;
    }
    __syncthreads();
    if (warp_id > 0) {
        const unsigned int block_sum = sums[warp_id - 1];
#pragma unroll
        for (unsigned int i = 0; i < 16; i++) result[i] += block_sum;
    }
    packed_result out;
    memcpy(&out, result, sizeof(out));
    return out;
}

extern "C" __global__ void integral_rows(const uint4* img, size_t img_len, uint4* integral_image,
                                         size_t integral_len) {
    const auto cta = cg::this_thread_block();
    const auto tile = cg::tiled_partition<32>(cta);
    const unsigned int id = threadIdx.x;
    const uint4* scanline = &img[blockIdx.x * 120];
    packed_result result = get_prefix_sum(scanline[id], cta);
    auto elem = [&result](unsigned int idx) -> const uint4 {
        switch (idx) {
            case 0: return result.x;
            case 1: return result.y;
            case 2: return result.z;
            case 3: return result.w;
        }
        return {};
    };
    const unsigned int id_mask = id & 3;
    const unsigned int id_swizzle = (id + 2) & 3;
    const unsigned int id_shift = (id >> 2) << 4;
    const unsigned int block_offset = blockIdx.x * 480;
    result.y = tile.shfl_xor(result.y, 1);
    result.z = tile.shfl_xor(result.z, 2);
    result.w = tile.shfl_xor(result.w, 3);
    integral_image[block_offset + id_mask + id_shift] = elem(id_mask);
    integral_image[block_offset + id_swizzle + id_shift + 8] = elem(id_swizzle);
    result.x = tile.shfl_xor(result.x, 1);
    result.y = tile.shfl_xor(result.y, 1);
    result.z = tile.shfl_xor(result.z, 1);
    result.w = tile.shfl_xor(result.w, 1);
    integral_image[block_offset + id_mask + id_shift + 4] = elem(id_mask);
    integral_image[block_offset + id_swizzle + id_shift + 12] = elem(id_swizzle);
}

extern "C" __global__ void integral_columns(unsigned int* img, size_t img_len, unsigned int width,
                                            unsigned int height) {
    __shared__ unsigned int sums[32][9];
    int tidx = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int lane_id = tidx % 8;
    unsigned int step_sum = 0;
    unsigned int mask = 0xffffffff;
    sums[threadIdx.x][threadIdx.y] = 0;
    __syncthreads();
    for (int step = 0; step < 135; step++) {
        unsigned int sum = 0;
        unsigned int* p = img + (threadIdx.y + step * 8) * width + tidx;
        sum = *p;
        sums[threadIdx.x][threadIdx.y] = sum;
        __syncthreads();
        int partial_sum = 0;
        int j = threadIdx.x % 8;
        int k = threadIdx.x / 8 + threadIdx.y * 4;
        partial_sum = sums[k][j];
        for (int i = 1; i <= 8; i *= 2) {
            int n = __shfl_up_sync(mask, partial_sum, i, 32);
            if (lane_id >= i) partial_sum += n;
        }
        sums[k][j] = partial_sum;
        __syncthreads();
        if (threadIdx.y > 0) sum += sums[threadIdx.x][threadIdx.y - 1];
        sum += step_sum;
        step_sum += sums[threadIdx.x][blockDim.y - 1];
        __syncthreads();
        *p = sum;
    }
}
