// CUB twins of coop's tile sorts (examples/kernels/src/tile_sort.rs): the
// same names, parameters (pointer, length pairs) and tiles, with CUB's
// BlockLoad and BlockStore (transposed through shared memory) and
// BlockRadixSort. nvcc makes their PTX; tile_sort_bench times the two.
#include <cub/cub.cuh>
#include <cstddef>

template <typename K, int THREADS, int ITEMS,
          cub::BlockLoadAlgorithm LOAD = cub::BLOCK_LOAD_TRANSPOSE,
          cub::BlockStoreAlgorithm STORE = cub::BLOCK_STORE_TRANSPOSE>
__device__ void sort_keys(const K* keys, size_t len, K* out, size_t out_len, K fill) {
    using Load = cub::BlockLoad<K, THREADS, ITEMS, LOAD>;
    using Sort = cub::BlockRadixSort<K, THREADS, ITEMS>;
    using Store = cub::BlockStore<K, THREADS, ITEMS, STORE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;
    const size_t tile = (size_t)THREADS * ITEMS;
    size_t first = (size_t)blockIdx.x * tile;
    int valid = len - first < tile ? (int)(len - first) : (int)tile;
    K items[ITEMS];
    Load(temp.load).Load(keys + first, items, valid, fill);
    __syncthreads();
    Sort(temp.sort).Sort(items);
    __syncthreads();
    int out_valid = out_len - first < tile ? (int)(out_len - first) : (int)tile;
    Store(temp.store).Store(out + first, items, out_valid);
}

// The warp-striped twins: CUB's warp-transposing loads and stores (each
// warp exchanges through its own part of the shared memory).
extern "C" __global__ void __launch_bounds__(128) tile_sort_u32_128x4_ws(const unsigned* keys, size_t len, unsigned* out, size_t out_len) {
    sort_keys<unsigned, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(
        keys, len, out, out_len, 0xffffffffu);
}

extern "C" __global__ void __launch_bounds__(256) tile_sort_u32_256x8_ws(const unsigned* keys, size_t len, unsigned* out, size_t out_len) {
    sort_keys<unsigned, 256, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE>(
        keys, len, out, out_len, 0xffffffffu);
}

extern "C" __global__ void __launch_bounds__(128) tile_sort_u32_128x4(const unsigned* keys, size_t len, unsigned* out, size_t out_len) {
    sort_keys<unsigned, 128, 4>(keys, len, out, out_len, 0xffffffffu);
}

extern "C" __global__ void __launch_bounds__(256) tile_sort_u32_256x8(const unsigned* keys, size_t len, unsigned* out, size_t out_len) {
    sort_keys<unsigned, 256, 8>(keys, len, out, out_len, 0xffffffffu);
}

extern "C" __global__ void __launch_bounds__(128) tile_sort_u64_128x4(const unsigned long long* keys, size_t len, unsigned long long* out, size_t out_len) {
    sort_keys<unsigned long long, 128, 4>(keys, len, out, out_len, ~0ull);
}

extern "C" __global__ void __launch_bounds__(128) tile_sort_pairs_u32_128x4(const unsigned* keys, size_t keys_len, const unsigned* values, size_t values_len,
                                                     unsigned* keys_out, size_t keys_out_len, unsigned* values_out, size_t values_out_len) {
    using Load = cub::BlockLoad<unsigned, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, 128, 4, unsigned>;
    using Store = cub::BlockStore<unsigned, 128, 4, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;
    size_t first = (size_t)blockIdx.x * 512;
    int valid = keys_len - first < 512 ? (int)(keys_len - first) : 512;
    unsigned k[4], v[4];
    Load(temp.load).Load(keys + first, k, valid, 0xffffffffu);
    __syncthreads();
    Load(temp.load).Load(values + first, v, valid, 0u);
    __syncthreads();
    Sort(temp.sort).Sort(k, v);
    __syncthreads();
    Store(temp.store).Store(keys_out + first, k, valid);
    __syncthreads();
    Store(temp.store).Store(values_out + first, v, valid);
}

struct KeyLess {
    __device__ bool operator()(unsigned a, unsigned b) const { return a < b; }
};

// Each warp's 256 keys: WarpLoad and WarpStore transposed through shared
// memory (coalesced), WarpMergeSort between them.
extern "C" __global__ void __launch_bounds__(128) warp_sort_u32_32x8(const unsigned* keys, size_t len, unsigned* out, size_t out_len) {
    using Load = cub::WarpLoad<unsigned, 8, cub::WARP_LOAD_TRANSPOSE, 32>;
    using Sort = cub::WarpMergeSort<unsigned, 8, 32>;
    using Store = cub::WarpStore<unsigned, 8, cub::WARP_STORE_TRANSPOSE, 32>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp[4];
    int warp = threadIdx.x / 32;
    size_t first = ((size_t)blockIdx.x * 4 + warp) * 256;
    int valid = first >= len ? 0 : (len - first < 256 ? (int)(len - first) : 256);
    unsigned items[8];
    Load(temp[warp].load).Load(keys + first, items, valid, 0xffffffffu);
    __syncwarp();
    Sort(temp[warp].sort).StableSort(items, KeyLess(), valid, 0xffffffffu);
    __syncwarp();
    Store(temp[warp].store).Store(out + first, items, valid);
}

// Each block's 1024 bytes by value, BlockHistogram (its default
// algorithm, sorting) on striped loads; the padding counted in bin 0 is
// taken back.
extern "C" __global__ void __launch_bounds__(128) block_histogram_u8_128x8(const unsigned char* samples, size_t len, unsigned* counts, size_t counts_len) {
    using Histogram = cub::BlockHistogram<unsigned char, 128, 8, 256>;
    __shared__ typename Histogram::TempStorage temp;
    __shared__ unsigned bins[256];
    size_t first = (size_t)blockIdx.x * 1024;
    unsigned char items[8];
    for (int i = 0; i < 8; ++i) {
        size_t at = first + i * 128 + threadIdx.x;
        items[i] = at < len ? samples[at] : 0;
    }
    Histogram(temp).Histogram(items, bins);
    __syncthreads();
    size_t valid = len - first < 1024 ? len - first : 1024;
    if (threadIdx.x == 0) bins[0] -= (unsigned)(1024 - valid);
    __syncthreads();
    size_t row = (size_t)blockIdx.x * 256;
    counts[row + threadIdx.x] = bins[threadIdx.x];
    counts[row + threadIdx.x + 128] = bins[threadIdx.x + 128];
}
