// CUB's side of segmented_sort_bench: DeviceSegmentedSort::SortKeys /
// SortPairs, their stable forms, and DeviceSegmentedRadixSort (input to
// output, the input untouched), as a shared library the Rust benchmark
// loads, so that both run in one process on one stream. Build
// (segmented_sort.sh does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_segmented_sort.so cub_segmented_sort.cu
#include <cub/cub.cuh>
#include <cstdint>
#include <cstdio>

// Which route: 0 DeviceSegmentedSort::Sort*, 1 DeviceSegmentedSort::StableSort*,
// 2 DeviceSegmentedRadixSort::Sort*.
template <typename K, typename V>
static cudaError_t sort(int route, int pairs, void* temp, size_t& bytes, const void* ki, void* ko,
                        const void* vi, void* vo, int n, int segments, const int* offsets,
                        cudaStream_t s) {
    const K* kin = (const K*)ki;
    K* kout = (K*)ko;
    const V* vin = (const V*)vi;
    V* vout = (V*)vo;
    const int* b = offsets;
    const int* e = offsets + 1;
    switch (route) {
        case 0:
            if (pairs)
                return cub::DeviceSegmentedSort::SortPairs(temp, bytes, kin, kout, vin, vout, n,
                                                           segments, b, e, s);
            return cub::DeviceSegmentedSort::SortKeys(temp, bytes, kin, kout, n, segments, b, e, s);
        case 1:
            if (pairs)
                return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, kin, kout, vin, vout,
                                                                 n, segments, b, e, s);
            return cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, kin, kout, n, segments, b,
                                                            e, s);
        case 2:
            if (pairs)
                return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, kin, kout, vin, vout,
                                                                n, segments, b, e, 0,
                                                                (int)sizeof(K) * 8, s);
            return cub::DeviceSegmentedRadixSort::SortKeys(temp, bytes, kin, kout, n, segments, b,
                                                           e, 0, (int)sizeof(K) * 8, s);
    }
    return cudaErrorInvalidValue;
}

// Which keys: 0 u32 keys, 1 f32 keys, 2 u64 keys, 3 u32 keys with u32 values.
static cudaError_t dispatch(int which, int route, void* temp, size_t& bytes, const void* ki,
                            void* ko, const void* vi, void* vo, int n, int segments,
                            const int* offsets, cudaStream_t s) {
    switch (which) {
        case 0:
            return sort<uint32_t, uint32_t>(route, 0, temp, bytes, ki, ko, vi, vo, n, segments,
                                            offsets, s);
        case 1:
            return sort<float, uint32_t>(route, 0, temp, bytes, ki, ko, vi, vo, n, segments,
                                         offsets, s);
        case 2:
            return sort<uint64_t, uint32_t>(route, 0, temp, bytes, ki, ko, vi, vo, n, segments,
                                            offsets, s);
        case 3:
            return sort<uint32_t, uint32_t>(route, 1, temp, bytes, ki, ko, vi, vo, n, segments,
                                            offsets, s);
    }
    return cudaErrorInvalidValue;
}

extern "C" {

/// "CUB major.minor.patch".
const char* cub_segmented_sort_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}

/// Scratch bytes sort `which` by `route` needs.
size_t cub_segmented_sort_temp_bytes(int which, int route, int n, int segments,
                                     const int* offsets) {
    size_t bytes = 0;
    dispatch(which, route, nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, segments,
             offsets, 0);
    return bytes;
}

/// Sort `which` by `route` of n keys (and values) in `segments` segments
/// (`offsets`: segments + 1 ints on the device) from `ki`/`vi` into
/// `ko`/`vo`, queued on `stream`; returns the CUDA error code.
int cub_segmented_sort(int which, int route, const void* ki, void* ko, const void* vi, void* vo,
                       int n, int segments, const int* offsets, void* temp, size_t bytes,
                       cudaStream_t stream) {
    return (int)dispatch(which, route, temp, bytes, ki, ko, vi, vo, n, segments, offsets, stream);
}

}  // extern "C"
