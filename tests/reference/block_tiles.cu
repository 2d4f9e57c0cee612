// CUDA twins of coop-test-kernels' `block_tiles` kernels, written with
// CUB's block-level primitives, compiled by nvcc at test time
// (tests/gpu.rs). Each entry point has the name and the parameters
// (pointer, length pairs; scalars) of the Rust kernel it checks, and the
// same tiles, fill values and neighbours.
#include <cub/cub.cuh>
#include <cstddef>
#include <cstdint>

template <typename T>
__device__ T element_or(const T* input, size_t len, size_t at, T fill) {
    return at < len ? input[at] : fill;
}

template <typename T, int ITEMS>
__device__ void load_blocked(const T* input, size_t len, size_t first, T fill, T (&items)[ITEMS]) {
    for (int i = 0; i < ITEMS; ++i) {
        items[i] = element_or(input, len, first + threadIdx.x * ITEMS + i, fill);
    }
}

template <typename T, int ITEMS>
__device__ void store_blocked(T* out, size_t len, size_t first, const T (&items)[ITEMS]) {
    for (int i = 0; i < ITEMS; ++i) {
        size_t at = first + threadIdx.x * ITEMS + i;
        if (at < len) out[at] = items[i];
    }
}

extern "C" __global__ void block_sort_u32(const unsigned* keys, size_t len, unsigned* out,
                                          size_t out_len) {
    using Load = cub::BlockLoad<unsigned, 128, 4, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, 128, 4>;
    using Store = cub::BlockStore<unsigned, 128, 4, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;
    size_t first = (size_t)blockIdx.x * 512;
    int valid = len - first < 512 ? (int)(len - first) : 512;
    unsigned items[4];
    Load(temp.load).Load(keys + first, items, valid, 0xffffffffu);
    __syncthreads();
    Sort(temp.sort).Sort(items);
    __syncthreads();
    int out_valid = out_len - first < 512 ? (int)(out_len - first) : 512;
    Store(temp.store).Store(out + first, items, out_valid);
}

extern "C" __global__ void block_sort_pairs_f32(const float* keys, size_t len, float* keys_out,
                                                size_t keys_out_len, unsigned* indices_out,
                                                size_t indices_out_len) {
    using Sort = cub::BlockRadixSort<float, 64, 8, unsigned>;
    __shared__ typename Sort::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 512;
    float items[8];
    load_blocked(keys, len, first, __uint_as_float(0xffffffffu), items);
    unsigned indices[8];
    for (int i = 0; i < 8; ++i) {
        size_t at = first + threadIdx.x * 8 + i;
        indices[i] = at < len ? (unsigned)at : 0xffffffffu;
    }
    Sort(temp).SortDescending(items, indices);
    store_blocked(keys_out, keys_out_len, first, items);
    store_blocked(indices_out, indices_out_len, first, indices);
}

extern "C" __global__ void block_sort_i64_bits(const long long* keys, size_t len, long long* out,
                                               size_t out_len, unsigned begin_bit,
                                               unsigned end_bit) {
    using Sort = cub::BlockRadixSort<long long, 64, 3>;
    __shared__ typename Sort::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 192;
    long long items[3];
    load_blocked(keys, len, first, (long long)INT64_MAX, items);
    if (begin_bit < end_bit) Sort(temp).Sort(items, begin_bit, end_bit);
    store_blocked(out, out_len, first, items);
}

extern "C" __global__ void block_sort_u8(const unsigned char* keys, size_t len, unsigned char* out,
                                         size_t out_len) {
    using Load = cub::BlockLoad<unsigned char, 32, 16, cub::BLOCK_LOAD_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned char, 32, 16>;
    using Store = cub::BlockStore<unsigned char, 32, 16, cub::BLOCK_STORE_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;
    size_t first = (size_t)blockIdx.x * 512;
    int valid = len - first < 512 ? (int)(len - first) : 512;
    unsigned char items[16];
    Load(temp.load).Load(keys + first, items, valid, (unsigned char)0xff);
    __syncthreads();
    Sort(temp.sort).Sort(items);
    __syncthreads();
    int out_valid = out_len - first < 512 ? (int)(out_len - first) : 512;
    Store(temp.store).Store(out + first, items, out_valid);
}

struct NotEqual {
    __device__ bool operator()(unsigned a, unsigned b) const { return a != b; }
};

extern "C" __global__ void block_flags_u32(const unsigned* keys, size_t len, unsigned* heads,
                                           size_t heads_len, unsigned* tails, size_t tails_len) {
    using Flags = cub::BlockDiscontinuity<unsigned, 96>;
    __shared__ typename Flags::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 288;
    unsigned items[3];
    load_blocked(keys, len, first, 0u, items);
    int h[3], t[3];
    bool has_before = first > 0, has_after = first + 288 < len;
    unsigned before = has_before ? keys[first - 1] : 0, after = has_after ? keys[first + 288] : 0;
    NotEqual differ;
    if (has_before && has_after) {
        Flags(temp).FlagHeadsAndTails(h, before, t, after, items, differ);
    } else if (has_before) {
        Flags(temp).FlagHeadsAndTails(h, before, t, items, differ);
    } else if (has_after) {
        Flags(temp).FlagHeadsAndTails(h, t, after, items, differ);
    } else {
        Flags(temp).FlagHeadsAndTails(h, t, items, differ);
    }
    unsigned hu[3] = {(unsigned)h[0], (unsigned)h[1], (unsigned)h[2]};
    unsigned tu[3] = {(unsigned)t[0], (unsigned)t[1], (unsigned)t[2]};
    store_blocked(heads, heads_len, first, hu);
    store_blocked(tails, tails_len, first, tu);
}

struct WrappingDifference {
    __device__ int operator()(int x, int neighbour) const {
        return (int)((unsigned)x - (unsigned)neighbour);
    }
};

extern "C" __global__ void block_differences_i32(const int* values, size_t len, int* left,
                                                 size_t left_len, int* right, size_t right_len) {
    using Adjacent = cub::BlockAdjacentDifference<int, 64>;
    __shared__ typename Adjacent::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 320;
    int items[5], l[5], r[5];
    load_blocked(values, len, first, 0, items);
    if (first > 0) {
        Adjacent(temp).SubtractLeft(items, l, WrappingDifference(), values[first - 1]);
    } else {
        Adjacent(temp).SubtractLeft(items, l, WrappingDifference());
    }
    __syncthreads();
    if (first + 320 < len) {
        Adjacent(temp).SubtractRight(items, r, WrappingDifference(), values[first + 320]);
    } else {
        Adjacent(temp).SubtractRight(items, r, WrappingDifference());
    }
    store_blocked(left, left_len, first, l);
    store_blocked(right, right_len, first, r);
}

extern "C" __global__ void block_scatter_u64(const unsigned long long* values, size_t len,
                                             unsigned long long* out, size_t out_len) {
    using Exchange = cub::BlockExchange<unsigned long long, 32, 7>;
    __shared__ typename Exchange::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 224;
    unsigned long long items[7];
    load_blocked(values, len, first, 0ull, items);
    int ranks[7];
    for (int i = 0; i < 7; ++i) ranks[i] = (5 * (7 * threadIdx.x + i) + 3) % 224;
    Exchange(temp).ScatterToStriped(items, ranks);
    for (int i = 0; i < 7; ++i) {
        size_t at = first + i * 32 + threadIdx.x;
        if (at < out_len) out[at] = items[i];
    }
}

struct Greater {
    __device__ bool operator()(int a, int b) const { return a > b; }
};

extern "C" __global__ void block_merge_sort_i32(const int* keys, size_t len, int* out,
                                                size_t out_len) {
    using Sort = cub::BlockMergeSort<int, 128, 4>;
    __shared__ typename Sort::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 512;
    int valid = len - first < 512 ? (int)(len - first) : 512;
    int items[4];
    load_blocked(keys, len, first, 0, items);
    // Places past `valid` take INT_MIN, the last of a descending order.
    Sort(temp).StableSort(items, Greater(), valid, INT32_MIN);
    store_blocked(out, out_len, first, items);
}

struct LowBits {
    __device__ bool operator()(unsigned long long a, unsigned long long b) const {
        return (a & 0xffff) < (b & 0xffff);
    }
};

extern "C" __global__ void block_merge_sort_pairs_u64(const unsigned long long* keys, size_t len,
                                                      unsigned long long* keys_out,
                                                      size_t keys_out_len, unsigned* indices_out,
                                                      size_t indices_out_len) {
    using Sort = cub::BlockMergeSort<unsigned long long, 64, 5, unsigned>;
    __shared__ typename Sort::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 320;
    int valid = len - first < 320 ? (int)(len - first) : 320;
    unsigned long long items[5];
    load_blocked(keys, len, first, 0ull, items);
    unsigned indices[5];
    for (int i = 0; i < 5; ++i) indices[i] = (unsigned)(first + threadIdx.x * 5 + i);
    // Places past `valid` take low bits 0xffff, the last of the order
    // (and after any valid key equal to them, the sort being stable).
    Sort(temp).StableSort(items, indices, LowBits(), valid, 0xffffull);
    store_blocked(keys_out, keys_out_len, first, items);
    store_blocked(indices_out, indices_out_len, first, indices);
}

extern "C" __global__ void block_histogram_u8(const unsigned char* samples, size_t len,
                                              unsigned* counts, size_t counts_len) {
    using Histogram = cub::BlockHistogram<unsigned char, 128, 8, 256>;
    __shared__ typename Histogram::TempStorage temp;
    __shared__ unsigned bins[256];
    size_t first = (size_t)blockIdx.x * 1024;
    unsigned char items[8];
    for (int i = 0; i < 8; ++i) items[i] = element_or(samples, len, first + i * 128 + threadIdx.x, (unsigned char)0);
    Histogram(temp).Histogram(items, bins);
    __syncthreads();
    // The padding was counted in bin 0.
    size_t valid = len - first < 1024 ? len - first : 1024;
    if (threadIdx.x == 0) bins[0] -= (unsigned)(1024 - valid);
    __syncthreads();
    size_t row = (size_t)blockIdx.x * 256;
    counts[row + threadIdx.x] = bins[threadIdx.x];
    counts[row + threadIdx.x + 128] = bins[threadIdx.x + 128];
}

extern "C" __global__ void block_histogram_u16(const unsigned short* samples, size_t len,
                                               unsigned* counts, size_t counts_len) {
    using Histogram = cub::BlockHistogram<unsigned short, 64, 4, 1000, cub::BLOCK_HISTO_ATOMIC>;
    __shared__ typename Histogram::TempStorage temp;
    __shared__ unsigned bins[1000];
    size_t first = (size_t)blockIdx.x * 1024;
    Histogram(temp).InitHistogram(bins);
    __syncthreads();
    for (int tile = 0; tile < 4; ++tile) {
        unsigned short items[4];
        load_blocked(samples, len, first + 256 * tile, (unsigned short)0, items);
        for (int i = 0; i < 4; ++i) items[i] %= 1000;
        Histogram(temp).Composite(items, bins);
        __syncthreads();
    }
    size_t valid = len - first < 1024 ? len - first : 1024;
    if (threadIdx.x == 0) bins[0] -= (unsigned)(1024 - valid);
    __syncthreads();
    size_t row = (size_t)blockIdx.x * 1000;
    for (int bin = threadIdx.x; bin < 1000; bin += 64) counts[row + bin] = bins[bin];
}

// CUB's BlockDiscontinuity has no partial-tile form: a tile's keys past
// the input take a key no valid one equals, with none after the tile, so
// the last valid key is a tail; the padding's flags are not stored.
extern "C" __global__ void block_flags_partial_u32(const unsigned* keys, size_t len,
                                                   unsigned* heads, size_t heads_len,
                                                   unsigned* tails, size_t tails_len) {
    using Flags = cub::BlockDiscontinuity<unsigned, 96>;
    __shared__ typename Flags::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 288;
    unsigned items[3];
    size_t valid = len - first;
    // Keys are below 5 in the tests: 5 differs from every one.
    load_blocked(keys, len, first, 5u, items);
    int h[3], t[3];
    NotEqual differ;
    if (first > 0) {
        Flags(temp).FlagHeadsAndTails(h, keys[first - 1], t, items, differ);
    } else {
        Flags(temp).FlagHeadsAndTails(h, t, items, differ);
    }
    // Every tile's last valid key is a tail (a whole tile has no tile after it).
    for (int i = 0; i < 3; ++i) {
        if (threadIdx.x * 3 + i + 1 == (valid < 288 ? valid : 288)) t[i] = 1;
    }
    unsigned hu[3] = {(unsigned)h[0], (unsigned)h[1], (unsigned)h[2]};
    unsigned tu[3] = {(unsigned)t[0], (unsigned)t[1], (unsigned)t[2]};
    store_blocked(heads, heads_len, first, hu);
    store_blocked(tails, tails_len, first, tu);
}

extern "C" __global__ void block_differences_partial_i32(const int* values, size_t len, int* left,
                                                         size_t left_len, int* right,
                                                         size_t right_len) {
    using Adjacent = cub::BlockAdjacentDifference<int, 64>;
    __shared__ typename Adjacent::TempStorage temp;
    size_t first = (size_t)blockIdx.x * 320;
    int valid = len - first < 320 ? (int)(len - first) : 320;
    int items[5], l[5], r[5];
    load_blocked(values, len, first, 5, items);
    if (first > 0) {
        Adjacent(temp).SubtractLeftPartialTile(items, l, WrappingDifference(), valid, values[first - 1]);
    } else {
        Adjacent(temp).SubtractLeftPartialTile(items, l, WrappingDifference(), valid);
    }
    __syncthreads();
    Adjacent(temp).SubtractRightPartialTile(items, r, WrappingDifference(), valid);
    store_blocked(left, left_len, first, l);
    store_blocked(right, right_len, first, r);
}

struct GreaterU32 {
    __device__ bool operator()(unsigned a, unsigned b) const { return a > b; }
};

// CUB's WarpMergeSort holds its items blocked: each lane loads and stores
// its 7 consecutive keys; the sorted tile is the same.
extern "C" __global__ void warp_sort_u32(const unsigned* keys, size_t len, unsigned* out,
                                         size_t out_len) {
    using Sort = cub::WarpMergeSort<unsigned, 7, 32>;
    __shared__ typename Sort::TempStorage temp[4];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    size_t first = ((size_t)blockIdx.x * 4 + warp) * 224;
    unsigned items[7];
    for (int i = 0; i < 7; ++i) items[i] = element_or(keys, len, first + lane * 7 + i, 0u);
    int valid = first >= len ? 0 : (len - first < 224 ? (int)(len - first) : 224);
    Sort(temp[warp]).StableSort(items, GreaterU32(), valid, 0u);
    for (int i = 0; i < 7; ++i) {
        size_t at = first + lane * 7 + i;
        if (at < out_len) out[at] = items[i];
    }
}

struct LowByte {
    __device__ bool operator()(long long a, long long b) const { return (a & 0xff) < (b & 0xff); }
};

extern "C" __global__ void warp_sort_pairs_i64(const long long* keys, size_t len,
                                               long long* keys_out, size_t keys_out_len,
                                               unsigned* indices_out, size_t indices_out_len) {
    using Sort = cub::WarpMergeSort<long long, 4, 16, unsigned>;
    __shared__ typename Sort::TempStorage temp[4];
    int tile = threadIdx.x / 16, r = threadIdx.x % 16;
    size_t first = ((size_t)blockIdx.x * 4 + tile) * 64;
    long long items[4];
    unsigned indices[4];
    for (int i = 0; i < 4; ++i) {
        items[i] = element_or(keys, len, first + r * 4 + i, -1ll);
        indices[i] = (unsigned)(first + r * 4 + i);
    }
    int valid = first >= len ? 0 : (len - first < 64 ? (int)(len - first) : 64);
    // Past `valid`: low byte 0xff, the last of the order.
    Sort(temp[tile]).StableSort(items, indices, LowByte(), valid, 0xffll);
    for (int i = 0; i < 4; ++i) {
        size_t at = first + r * 4 + i;
        if (at < keys_out_len) {
            keys_out[at] = items[i];
            indices_out[at] = indices[i];
        }
    }
}

extern "C" __global__ void block_sort_warp_striped_u32(const unsigned* keys, size_t len,
                                                       unsigned* out, size_t out_len) {
    using Load = cub::BlockLoad<unsigned, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Sort = cub::BlockRadixSort<unsigned, 128, 4>;
    using Store = cub::BlockStore<unsigned, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Sort::TempStorage sort;
        typename Store::TempStorage store;
    } temp;
    size_t first = (size_t)blockIdx.x * 512;
    int valid = len - first < 512 ? (int)(len - first) : 512;
    unsigned items[4];
    Load(temp.load).Load(keys + first, items, valid, 0xffffffffu);
    __syncthreads();
    Sort(temp.sort).Sort(items);
    __syncthreads();
    Store(temp.store).Store(out + first, items, valid);
}

// The vectorized copies: BlockLoad/BlockStore with BLOCK_LOAD_VECTORIZE
// and BLOCK_STORE_VECTORIZE, guarded at the input's and the output's ends.
// CUB's vectorized store of a full tile does not check the pointer's
// alignment (it requires a pointer aligned to the vector; an H100 faulted
// with a misaligned address on `out + 1`), so the twin checks it, as a CUB
// user must, and stores element by element (BLOCK_STORE_DIRECT) where it
// is not aligned; the same for the load. coop's `store_vectorized` and
// `load_vectorized` make that check themselves.
template <typename T, int ITEMS>
__device__ void copy_vectorized(const T* input, size_t len, unsigned offset, unsigned shift,
                                T* out, size_t out_len, T fill) {
    using Load = cub::BlockLoad<T, 64, ITEMS, cub::BLOCK_LOAD_VECTORIZE>;
    using LoadDirect = cub::BlockLoad<T, 64, ITEMS, cub::BLOCK_LOAD_DIRECT>;
    using Store = cub::BlockStore<T, 64, ITEMS, cub::BLOCK_STORE_VECTORIZE>;
    using StoreDirect = cub::BlockStore<T, 64, ITEMS, cub::BLOCK_STORE_DIRECT>;
    const size_t tile = 64 * ITEMS;
    const size_t n = len - offset;
    const size_t first = (size_t)blockIdx.x * tile;
    T items[ITEMS];
    const size_t left = n > first ? n - first : 0;
    const T* from = input + offset + first;
    if (left >= tile && reinterpret_cast<uintptr_t>(from) % 16 == 0) {
        Load().Load(from, items);
    } else if (left >= tile) {
        LoadDirect().Load(from, items);
    } else {
        Load().Load(from, items, (int)left, fill);
    }
    const size_t at = (size_t)shift + first;
    const size_t room = out_len > at ? out_len - at : 0;
    if (room >= tile && reinterpret_cast<uintptr_t>(out + at) % 16 == 0) {
        Store().Store(out + at, items);
    } else if (room >= tile) {
        StoreDirect().Store(out + at, items);
    } else {
        Store().Store(out + at, items, (int)room);
    }
}

extern "C" __global__ void block_copy_vectorized_u32(const unsigned* input, size_t len,
                                                     unsigned offset, unsigned shift,
                                                     unsigned* out, size_t out_len) {
    copy_vectorized<unsigned, 8>(input, len, offset, shift, out, out_len, 0xffffffffu);
}

extern "C" __global__ void block_copy_vectorized_i64(const long long* input, size_t len,
                                                     unsigned offset, unsigned shift,
                                                     long long* out, size_t out_len) {
    copy_vectorized<long long, 6>(input, len, offset, shift, out, out_len, -1);
}

extern "C" __global__ void block_copy_vectorized_f32x3(const float* input, size_t len,
                                                       unsigned offset, unsigned shift, float* out,
                                                       size_t out_len) {
    copy_vectorized<float, 3>(input, len, offset, shift, out, out_len, __int_as_float(0x7fc00000));
}
