// CUB's side of sort_bench: DeviceRadixSort::SortKeys and SortPairs (input
// to output, the input untouched), as a shared library the Rust benchmark
// loads, so that both run in one process on one stream. Build (sort.sh
// does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_sort.so cub_sort.cu
#include <cub/cub.cuh>
#include <cstdint>
#include <cstdio>

// Which sort: 0 u32 keys, 1 u64 keys, 2 f32 keys, 3 f64 keys, 4 u32 keys
// with u32 values, 5 u64 keys with u32 values.
template <typename K, typename V>
static cudaError_t sort(int pairs, void* temp, size_t& bytes, const void* ki, void* ko,
                        const void* vi, void* vo, int n, cudaStream_t s) {
    if (pairs) {
        return cub::DeviceRadixSort::SortPairs(temp, bytes, (const K*)ki, (K*)ko, (const V*)vi,
                                               (V*)vo, n, 0, (int)sizeof(K) * 8, s);
    }
    return cub::DeviceRadixSort::SortKeys(temp, bytes, (const K*)ki, (K*)ko, n, 0,
                                          (int)sizeof(K) * 8, s);
}

static cudaError_t dispatch(int which, void* temp, size_t& bytes, const void* ki, void* ko,
                            const void* vi, void* vo, int n, cudaStream_t s) {
    switch (which) {
        case 0: return sort<uint32_t, uint32_t>(0, temp, bytes, ki, ko, vi, vo, n, s);
        case 1: return sort<uint64_t, uint32_t>(0, temp, bytes, ki, ko, vi, vo, n, s);
        case 2: return sort<float, uint32_t>(0, temp, bytes, ki, ko, vi, vo, n, s);
        case 3: return sort<double, uint32_t>(0, temp, bytes, ki, ko, vi, vo, n, s);
        case 4: return sort<uint32_t, uint32_t>(1, temp, bytes, ki, ko, vi, vo, n, s);
        case 5: return sort<uint64_t, uint32_t>(1, temp, bytes, ki, ko, vi, vo, n, s);
    }
    return cudaErrorInvalidValue;
}

extern "C" {

/// "CUB major.minor.patch".
const char* cub_sort_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}

/// Scratch bytes sort `which` needs for n keys.
size_t cub_sort_temp_bytes(int which, int n) {
    size_t bytes = 0;
    dispatch(which, nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, 0);
    return bytes;
}

/// Sort `which` of n keys (and values) from `ki`/`vi` into `ko`/`vo`,
/// queued on `stream`; returns the CUDA error code.
int cub_sort(int which, const void* ki, void* ko, const void* vi, void* vo, int n, void* temp,
             size_t bytes, cudaStream_t stream) {
    return (int)dispatch(which, temp, bytes, ki, ko, vi, vo, n, stream);
}

}  // extern "C"
