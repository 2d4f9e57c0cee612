// CUB's side of top_k_bench: the k largest keys of n (with their indices)
// by the route CUB users take, DeviceRadixSort::SortKeysDescending /
// SortPairsDescending then the first k, and by DeviceTopK::MaxKeys /
// MaxPairs where the toolkit's CUB has it (unordered, not deterministic).
// A shared library the Rust benchmark loads, so that both run in one
// process on one stream. Build (top_k.sh does):
//   nvcc -O3 -std=c++17 -arch=sm_90 -shared -Xcompiler -fPIC \
//        -o libcub_top_k.so cub_top_k.cu
// adding -DCOOP_NO_DEVICE_TOPK where the toolkit lacks DeviceTopK.
#include <cub/cub.cuh>
#include <cstdint>
#include <cstdio>
#if !defined(COOP_NO_DEVICE_TOPK) && __has_include(<cub/device/device_topk.cuh>)
#include <cub/device/device_topk.cuh>
#define COOP_HAS_DEVICE_TOPK 1
#else
#define COOP_HAS_DEVICE_TOPK 0
#endif

// Which selection: 0 f32 keys, 1 f32 keys with u32 indices, 2 u32 keys,
// 3 u64 keys. Route 0 sorts (outputs hold n), route 1 is DeviceTopK
// (outputs hold k).
template <typename K>
static cudaError_t run(int pairs, int route, void* temp, size_t& bytes, const void* ki, void* ko,
                       const void* vi, void* vo, int n, int k, cudaStream_t s) {
    if (route == 0) {
        if (pairs) {
            return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, (const K*)ki, (K*)ko,
                                                             (const uint32_t*)vi, (uint32_t*)vo, n,
                                                             0, (int)sizeof(K) * 8, s);
        }
        return cub::DeviceRadixSort::SortKeysDescending(temp, bytes, (const K*)ki, (K*)ko, n, 0,
                                                        (int)sizeof(K) * 8, s);
    }
#if COOP_HAS_DEVICE_TOPK
    auto requirements = cuda::execution::require(cuda::execution::determinism::not_guaranteed,
                                                  cuda::execution::output_ordering::unsorted);
    auto env = cuda::std::execution::env{cuda::stream_ref{s}, requirements};
    if (pairs) {
        return cub::DeviceTopK::MaxPairs(temp, bytes, (const K*)ki, (K*)ko, (const uint32_t*)vi,
                                         (uint32_t*)vo, n, k, env);
    }
    return cub::DeviceTopK::MaxKeys(temp, bytes, (const K*)ki, (K*)ko, n, k, env);
#else
    (void)k;
    return cudaErrorNotSupported;
#endif
}

static cudaError_t dispatch(int which, int route, void* temp, size_t& bytes, const void* ki,
                            void* ko, const void* vi, void* vo, int n, int k, cudaStream_t s) {
    switch (which) {
        case 0: return run<float>(0, route, temp, bytes, ki, ko, vi, vo, n, k, s);
        case 1: return run<float>(1, route, temp, bytes, ki, ko, vi, vo, n, k, s);
        case 2: return run<uint32_t>(0, route, temp, bytes, ki, ko, vi, vo, n, k, s);
        case 3: return run<uint64_t>(0, route, temp, bytes, ki, ko, vi, vo, n, k, s);
    }
    return cudaErrorInvalidValue;
}

extern "C" {

/// "CUB major.minor.patch" and whether DeviceTopK was built in.
const char* cub_top_k_version() {
    static char text[64];
    snprintf(text, sizeof text, "CUB %d.%d.%d%s", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION, COOP_HAS_DEVICE_TOPK ? " with DeviceTopK" : " without DeviceTopK");
    return text;
}

/// Whether route 1 (DeviceTopK) exists.
int cub_top_k_has_device_topk() { return COOP_HAS_DEVICE_TOPK; }

/// Scratch bytes selection `which` by `route` needs.
size_t cub_top_k_temp_bytes(int which, int route, int n, int k) {
    size_t bytes = 0;
    dispatch(which, route, nullptr, bytes, nullptr, nullptr, nullptr, nullptr, n, k, 0);
    return bytes;
}

/// Selection `which` by `route`, queued on `stream`; the CUDA error code.
int cub_top_k(int which, int route, const void* ki, void* ko, const void* vi, void* vo, int n,
              int k, void* temp, size_t bytes, cudaStream_t stream) {
    return (int)dispatch(which, route, temp, bytes, ki, ko, vi, vo, n, k, stream);
}

}  // extern "C"
