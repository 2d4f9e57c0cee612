// CUDA C++ twins of coop's ports of NVIDIA's small cooperative-groups
// samples (examples/kernels/src/cg_samples.rs): the kernels of
// warpAggregatedAtomicsCG (filter_arr, mapToBuckets,
// calculateMaxInEachBuckets), binaryPartitionCG (oddEvenCountAndSumCG) and
// reductionMultiBlockCG (reduceSinglePassMultiBlockCG), their bodies as in
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
