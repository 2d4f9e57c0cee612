// CUDA C++ twins of coop's ports of NVIDIA's small cooperative-groups
// samples (examples/kernels/src/cg_samples.rs): the kernels of
// warpAggregatedAtomicsCG (filter_arr, mapToBuckets,
// calculateMaxInEachBuckets), binaryPartitionCG (oddEvenCountAndSumCG) and
// reductionMultiBlockCG (reduceSinglePassMultiBlockCG), shfl_scan's
// simple scan, reduction's cooperative-groups kernels 6, 8 and 9 (reduce6
// for int, 256 threads and a power-of-two length; cg_reduce;
// multi_warp_cg_reduce for 256 threads in tiles of 128) and
// simpleCooperativeGroups (cgkernel, its printf a store), their bodies as in
// the samples, with coop's entry names and parameter words (each slice a
// pointer and a length, the sample's element count being the length).
// cg_samples_bench loads the PTX nvcc makes of this file (COOP_CUDA_PTX).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstddef>

namespace cg = cooperative_groups;

__device__ int atomicAggInc(int* counter) {
    cg::coalesced_group active = cg::coalesced_threads();
    int res = 0;
    if (active.thread_rank() == 0) res = atomicAdd(counter, active.size());
    res = active.shfl(res, 0);
    return res + active.thread_rank();
}

extern "C" __global__ void filter_arr(int* dst, size_t dst_len, int* nres, size_t nres_len,
                                      const int* src, size_t n) {
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    for (int i = id; i < (int)n; i += gridDim.x * blockDim.x) {
        if (src[i] > 0) dst[atomicAggInc(nres)] = src[i];
    }
}

__device__ int atomicAggIncMulti(const int bucket, int* counter) {
    cg::coalesced_group active = cg::coalesced_threads();
    auto labeledGroup = cg::labeled_partition(active, bucket);
    int res = 0;
    if (labeledGroup.thread_rank() == 0) res = atomicAdd(&counter[bucket], labeledGroup.size());
    res = labeledGroup.shfl(res, 0);
    return res + labeledGroup.thread_rank();
}

extern "C" __global__ void map_to_buckets(const int* srcArr, size_t srcSize, int* indicesBuckets,
                                          size_t indices_len, int* bucketCounters,
                                          size_t numOfBuckets) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < (int)srcSize; i += grid.size()) {
        const int bucket = srcArr[i];
        if (bucket < (int)numOfBuckets) {
            indicesBuckets[atomicAggIncMulti(bucket, bucketCounters)] = i;
        }
    }
}

__device__ void atomicAggMaxMulti(const int bucket, int* counter, const int valueForMax) {
    cg::coalesced_group active = cg::coalesced_threads();
    auto labeledGroup = cg::labeled_partition(active, bucket);
    const int maxValueInGroup = cg::reduce(labeledGroup, valueForMax, cg::greater<int>());
    if (labeledGroup.thread_rank() == 0) atomicMax(&counter[bucket], maxValueInGroup);
}

extern "C" __global__ void max_in_buckets(const int* srcArr, size_t srcSize,
                                          const int* valueInBuckets, size_t values_len,
                                          int* bucketsMax, size_t numOfBuckets) {
    cg::grid_group grid = cg::this_grid();
    for (int i = grid.thread_rank(); i < (int)srcSize; i += grid.size()) {
        const int bucket = srcArr[i];
        if (bucket < (int)numOfBuckets) atomicAggMaxMulti(bucket, bucketsMax, valueInBuckets[i]);
    }
}

extern "C" __global__ void odd_even_count_and_sum(const int* inputArr, size_t size, int* numOfOdds,
                                                  size_t odds_len, int* sumOfOddAndEvens,
                                                  size_t sums_len) {
    cg::thread_block cta = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    for (int i = grid.thread_rank(); i < (int)size; i += grid.size()) {
        int elem = inputArr[i];
        auto subTile = cg::binary_partition(tile32, elem & 1);
        if (elem & 1) {
            int oddGroupSum = cg::reduce(subTile, elem, cg::plus<int>());
            if (subTile.thread_rank() == 0) {
                atomicAdd(numOfOdds, subTile.size());
                atomicAdd(&sumOfOddAndEvens[0], oddGroupSum);
            }
        } else {
            int evenGroupSum = cg::reduce(subTile, elem, cg::plus<int>());
            if (subTile.thread_rank() == 0) atomicAdd(&sumOfOddAndEvens[1], evenGroupSum);
        }
        cg::sync(tile32);
    }
}

__device__ void reduceBlock(double* sdata, const cg::thread_block& cta) {
    const unsigned int tid = cta.thread_rank();
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    sdata[tid] = cg::reduce(tile32, sdata[tid], cg::plus<double>());
    cg::sync(cta);
    double beta = 0.0;
    if (cta.thread_rank() == 0) {
        beta = 0;
        for (int i = 0; i < blockDim.x; i += tile32.size()) beta += sdata[i];
        sdata[0] = beta;
    }
    cg::sync(cta);
}

extern "C" __global__ void reduce_single_pass(const float* g_idata, size_t n, float* g_odata,
                                              size_t out_len) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    extern double __shared__ sdata[];
    sdata[block.thread_rank()] = 0;
    for (int i = grid.thread_rank(); i < (int)n; i += grid.size()) {
        sdata[block.thread_rank()] += g_idata[i];
    }
    cg::sync(block);
    reduceBlock(sdata, block);
    if (block.thread_rank() == 0) g_odata[blockIdx.x] = sdata[0];
    cg::sync(grid);
    if (grid.thread_rank() == 0) {
        for (int block = 1; block < gridDim.x; block++) g_odata[0] += g_odata[block];
    }
}

// shfl_scan's simple scan: the sample's shfl_scan_test with width 32 (as
// the sample calls it) and its partial sums written when there is room
// for them (the sample passes NULL on the second call), and uniform_add,
// which the sample launches on data + blockSize.
extern "C" __global__ void scan_blocks(int* data, size_t len, int* partial_sums,
                                       size_t partial_len) {
    extern __shared__ int sums[];
    const int width = 32;
    int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
    int lane_id = id % warpSize;
    int warp_id = threadIdx.x / warpSize;
    int value = data[id];
#pragma unroll
    for (int i = 1; i <= width; i *= 2) {
        unsigned int mask = 0xffffffff;
        int n = __shfl_up_sync(mask, value, i, width);
        if (lane_id >= i) value += n;
    }
    if (threadIdx.x % warpSize == warpSize - 1) sums[warp_id] = value;
    __syncthreads();
    if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
        int warp_sum = sums[lane_id];
        int mask = (1 << (blockDim.x / warpSize)) - 1;
        for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
            int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));
            if (lane_id >= i) warp_sum += n;
        }
        sums[lane_id] = warp_sum;
    }
    __syncthreads();
    int blockSum = 0;
    if (warp_id > 0) blockSum = sums[warp_id - 1];
    value += blockSum;
    data[id] = value;
    if (partial_len > blockIdx.x && threadIdx.x == blockDim.x - 1) partial_sums[blockIdx.x] = value;
}

extern "C" __global__ void uniform_add(int* data_all, size_t len_all, const int* partial_sums,
                                       size_t partial_len) {
    __shared__ int buf;
    int* data = data_all + blockDim.x;
    int len = (int)len_all;
    int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
    if (id > len) return;
    if (threadIdx.x == 0) buf = partial_sums[blockIdx.x];
    __syncthreads();
    data[id] += buf;
}

// reduction's kernel 6, reduce6<int, 256, true>: two loads a pass, a
// shared-memory tree with a barrier a step, the last warp by shuffles.
extern "C" __global__ void reduce6(const int* g_idata, size_t len, int* g_odata, size_t out_len) {
    const unsigned blockSize = 256;
    cg::thread_block cta = cg::this_thread_block();
    extern __shared__ int r6_sdata[];
    unsigned n = (unsigned)len;
    unsigned tid = threadIdx.x;
    unsigned gridSize = (blockSize * gridDim.x) << 1;
    int mySum = 0;
    unsigned i = blockIdx.x * blockSize * 2 + threadIdx.x;
    while (i < n) {
        mySum += g_idata[i];
        if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
        i += gridSize;
    }
    r6_sdata[tid] = mySum;
    cg::sync(cta);
    if ((blockSize >= 512) && (tid < 256)) r6_sdata[tid] = mySum = mySum + r6_sdata[tid + 256];
    cg::sync(cta);
    if ((blockSize >= 256) && (tid < 128)) r6_sdata[tid] = mySum = mySum + r6_sdata[tid + 128];
    cg::sync(cta);
    if ((blockSize >= 128) && (tid < 64)) r6_sdata[tid] = mySum = mySum + r6_sdata[tid + 64];
    cg::sync(cta);
    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
    if (cta.thread_rank() < 32) {
        if (blockSize >= 64) mySum += r6_sdata[tid + 32];
        for (int offset = tile32.size() / 2; offset > 0; offset /= 2)
            mySum += tile32.shfl_down(mySum, offset);
    }
    if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

// reduction's kernel 8, cg_reduce<int>: one load a pass, the block halved
// through shared memory down to a warp, then cg::reduce on the first warp.
extern "C" __global__ void cg_reduce(const int* g_idata, size_t len, int* g_odata,
                                     size_t out_len) {
    extern __shared__ int c8_sdata[];
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
    unsigned n = (unsigned)len;
    unsigned ctaSize = cta.size();
    unsigned numCtas = gridDim.x;
    unsigned threadRank = cta.thread_rank();
    unsigned threadIndex = (blockIdx.x * ctaSize) + threadRank;
    int threadVal = 0;
    {
        unsigned i = threadIndex;
        unsigned indexStride = numCtas * ctaSize;
        while (i < n) {
            threadVal += g_idata[i];
            i += indexStride;
        }
        c8_sdata[threadRank] = threadVal;
    }
    {
        unsigned ctaIndex = ctaSize >> 1;
        while (ctaIndex >= 32) {
            cta.sync();
            if (threadRank < ctaIndex) {
                threadVal += c8_sdata[threadRank + ctaIndex];
                c8_sdata[threadRank] = threadVal;
            }
            ctaIndex >>= 1;
        }
    }
    cta.sync();
    if (tile.meta_group_rank() == 0) threadVal = cg::reduce(tile, threadVal, cg::plus<int>());
    if (threadRank == 0) g_odata[blockIdx.x] = threadVal;
}

// reduction's kernel 9, multi_warp_cg_reduce<int, 256, 128>: the loads of
// kernel 6, cg::reduce over each tile of 128 threads, the tiles' sums added
// by thread 0.
extern "C" __global__ void multi_warp_cg_reduce(const int* g_idata, size_t len, int* g_odata,
                                                size_t out_len) {
    const unsigned BlockSize = 256;
    extern __shared__ int c9_sdata[];
    __shared__ cg::block_tile_memory<BlockSize> scratch;
    auto cta = cg::this_thread_block(scratch);
    auto multiWarpTile = cg::tiled_partition<128>(cta);
    unsigned n = (unsigned)len;
    unsigned gridSize = BlockSize * gridDim.x;
    int threadVal = 0;
    int nIsPow2 = !(n & (n - 1));
    if (nIsPow2) {
        unsigned i = blockIdx.x * BlockSize * 2 + threadIdx.x;
        gridSize = gridSize << 1;
        while (i < n) {
            threadVal += g_idata[i];
            if ((i + BlockSize) < n) threadVal += g_idata[i + blockDim.x];
            i += gridSize;
        }
    } else {
        unsigned i = blockIdx.x * BlockSize + threadIdx.x;
        while (i < n) {
            threadVal += g_idata[i];
            i += gridSize;
        }
    }
    threadVal = cg::reduce(multiWarpTile, threadVal, cg::plus<int>());
    if (multiWarpTile.thread_rank() == 0) c9_sdata[multiWarpTile.meta_group_rank()] = threadVal;
    cg::sync(cta);
    if (threadIdx.x == 0) {
        threadVal = 0;
        for (int i = 0; i < (int)multiWarpTile.meta_group_size(); i++) threadVal += c9_sdata[i];
        g_odata[blockIdx.x] = threadVal;
    }
}

// simpleCooperativeGroups: sumReduction over a thread_group through a
// shared workspace, for the block and for its tiles of 16; what the sample
// prints is stored in sums.
__device__ int sumReduction(cg::thread_group g, int* x, int val) {
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        x[lane] = val;
        g.sync();
        if (lane < i) val += x[lane + i];
        g.sync();
    }
    return g.thread_rank() == 0 ? val : -1;
}

extern "C" __global__ void cg_kernel(int* sums, size_t sums_len) {
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ int workspace[];
    int output = sumReduction(block, workspace, block.thread_rank());
    if (block.thread_rank() == 0) sums[0] = output;
    block.sync();
    cg::thread_group tile16 = cg::tiled_partition(block, 16);
    int offset = block.thread_rank() - tile16.thread_rank();
    output = sumReduction(tile16, workspace + offset, tile16.thread_rank());
    if (tile16.thread_rank() == 0) sums[1 + block.thread_rank() / 16] = output;
}
