// CUB's side of scan_by_key_bench: DeviceScan::InclusiveSumByKey and
// ExclusiveSumByKey (keys and values in, sums out), as a shared library
// the Rust benchmark loads, so that both run in one process on one
// stream. Build (scan_by_key.sh does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_scan_by_key.so cub_scan_by_key.cu
#include <cub/cub.cuh>
#include <cstdint>
#include <cstdio>

template <typename K, typename V>
static cudaError_t scan(int exclusive, void* temp, size_t& bytes, const void* k, const void* v,
                        void* out, int n, cudaStream_t s) {
    if (exclusive)
        return cub::DeviceScan::ExclusiveSumByKey(temp, bytes, (const K*)k, (const V*)v, (V*)out, n,
                                                  cuda::std::equal_to<>(), s);
    return cub::DeviceScan::InclusiveSumByKey(temp, bytes, (const K*)k, (const V*)v, (V*)out, n,
                                              cuda::std::equal_to<>(), s);
}

// Which values (u32 keys): 0 i32, 1 f32, 2 u64; then 3: u64 keys with
// f64 values.
static cudaError_t dispatch(int which, int exclusive, void* temp, size_t& bytes, const void* k,
                            const void* v, void* out, int n, cudaStream_t s) {
    switch (which) {
        case 0: return scan<uint32_t, int32_t>(exclusive, temp, bytes, k, v, out, n, s);
        case 1: return scan<uint32_t, float>(exclusive, temp, bytes, k, v, out, n, s);
        case 2: return scan<uint32_t, uint64_t>(exclusive, temp, bytes, k, v, out, n, s);
        case 3: return scan<uint64_t, double>(exclusive, temp, bytes, k, v, out, n, s);
    }
    return cudaErrorInvalidValue;
}

extern "C" {

/// "CUB major.minor.patch".
const char* cub_scan_by_key_version() {
    static char text[32];
    snprintf(text, sizeof text, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
    return text;
}

/// Scratch bytes scan `which` needs for n elements.
size_t cub_scan_by_key_temp_bytes(int which, int exclusive, int n) {
    size_t bytes = 0;
    dispatch(which, exclusive, nullptr, bytes, nullptr, nullptr, nullptr, n, 0);
    return bytes;
}

/// Scan `which` of n keys and values into `out`, queued on `stream`;
/// returns the CUDA error code.
int cub_scan_by_key(int which, int exclusive, const void* k, const void* v, void* out, int n,
                    void* temp, size_t bytes, cudaStream_t stream) {
    return (int)dispatch(which, exclusive, temp, bytes, k, v, out, n, stream);
}

}  // extern "C"
