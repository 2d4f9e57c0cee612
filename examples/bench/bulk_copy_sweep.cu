// What a copy through shared memory by the bulk-copy engine needs to reach
// the driver's device-to-device copy (sm_90): a sweep over the tile's size,
// the ring's depth, the blocks a multiprocessor holds and how long a stored
// stage may stay unread by the engine before it is refilled ("lag": 0 is
// store, wait until the engine has read the stage, reload it; L lets the
// last L stores stay in flight and refills the stage stored L tiles ago).
// One thread of each block issues everything; no element passes through a
// register. Beside it: a 16-byte vector copy through registers with U
// vectors in flight a thread, and cudaMemcpy device to device.
//
// Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o bulk_copy_sweep bulk_copy_sweep.cu && ./bulk_copy_sweep [log2 floats]
// Prints CSV: kernel,tile_bytes,stages,lag,blocks_per_sm,median_us,GBps (read + write).
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#define CHECK(x)                                                                              \
    do {                                                                                      \
        cudaError_t e = (x);                                                                  \
        if (e != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
            std::exit(1);                                                                     \
        }                                                                                     \
    } while (0)

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// POL: 0 no cache hint; 1 loads marked evict-first in L2; 2 loads and
// stores; 3 stores only.
template <int POL>
__device__ __forceinline__ void load_tile(uint32_t dst, const char* src, uint32_t bytes, uint32_t bar, uint64_t pol) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
    if constexpr (POL == 1 || POL == 2)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;" ::"r"(dst),
            "l"(src), "r"(bytes), "r"(bar), "l"(pol)
            : "memory");
    else
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                     "l"(src), "r"(bytes), "r"(bar)
                     : "memory");
}

template <int POL>
__device__ __forceinline__ void store_tile(char* dst, uint32_t src, uint32_t bytes, uint64_t pol) {
    if constexpr (POL >= 2)
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(dst), "r"(src),
                     "r"(bytes), "l"(pol)
                     : "memory");
    else
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
                     : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

__device__ __forceinline__ void wait_parity(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        "@!p bra W;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

template <int LAG>
__device__ __forceinline__ void wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(LAG) : "memory");
}

// Tiles k = blockIdx.x + i * gridDim.x, i = 0, 1, ... (CH = 1: block b
// takes a contiguous run of tiles instead); stage i % STAGES.
template <int TB, int STAGES, int LAG, int POL, int CH>
__global__ void __launch_bounds__(32) bulk_copy(const char* in, char* out, size_t tiles) {
    extern __shared__ __align__(128) char ring[];
    __shared__ __align__(8) uint64_t full[STAGES];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < STAGES; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&full[s])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    uint32_t base = smem_addr(ring);
    uint64_t pol = 0;
    if constexpr (POL != 0) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    size_t k0 = blockIdx.x, stride = gridDim.x;
    if constexpr (CH == 1) {
        size_t per = tiles / gridDim.x, extra = tiles % gridDim.x;
        k0 = blockIdx.x * per + (blockIdx.x < extra ? blockIdx.x : extra);
        tiles = k0 + per + (blockIdx.x < extra ? 1 : 0);
        stride = 1;
    }
    for (int s = 0; s < STAGES; ++s) {
        size_t k = k0 + s * stride;
        if (k < tiles) load_tile<POL>(base + s * TB, in + k * TB, TB, smem_addr(&full[s]), pol);
    }
    for (size_t i = 0;; ++i) {
        size_t k = k0 + i * stride;
        if (k >= tiles) break;
        int s = i % STAGES;
        wait_parity(smem_addr(&full[s]), (i / STAGES) & 1);
        store_tile<POL>(out + k * TB, base + s * TB, TB, pol);
        if (LAG == 0 || i >= (size_t)LAG) {
            size_t j = i - LAG;
            size_t kj = k0 + (j + STAGES) * stride;
            if (kj < tiles) {
                wait_read<LAG>();
                int sj = j % STAGES;
                load_tile<POL>(base + sj * TB, in + kj * TB, TB, smem_addr(&full[sj]), pol);
            }
        }
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <int U>
__global__ void vector_copy(const float4* in, float4* out, size_t n4) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) v[u] = __ldcs(in + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; ++u) __stcs(out + i + u * stride, v[u]);
    }
    for (; i < n4; i += stride) out[i] = in[i];
}

static int sms;
static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <typename F>
static float time_it(F f) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    f();
    f();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < 15; ++r) {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.0f);
    }
    CHECK(cudaGetLastError());
    return median(t);
}

static size_t nbytes;
static char *din, *dout;

static bool check() {
    std::vector<float> h(nbytes / 4);
    CHECK(cudaMemcpy(h.data(), dout, nbytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < h.size(); i += 997)
        if (h[i] != (float)(i % 4099)) return false;
    if (h.back() != (float)((h.size() - 1) % 4099)) return false;
    return true;
}

static void report(const char* kernel, int tb, int stages, int lag, int bps, float us) {
    std::printf("%s,%d,%d,%d,%d,%.2f,%.0f\n", kernel, tb, stages, lag, bps, us, 2.0 * nbytes / (us * 1e3));
    std::fflush(stdout);
}

template <int TB, int STAGES, int LAG, int POL = 0, int CH = 0>
static void run_bulk(int bps) {
    auto k = bulk_copy<TB, STAGES, LAG, POL, CH>;
    int smem = TB * STAGES;
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int fit = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, 32, smem));
    if (fit < bps) return;
    size_t tiles = nbytes / TB;
    CHECK(cudaMemset(dout, 0, nbytes));
    float us = time_it([&] { k<<<sms * bps, 32, smem>>>(din, dout, tiles); });
    if (!check()) {
        std::printf("# bulk %d %d %d %d %d %d: wrong output\n", TB, STAGES, LAG, bps, POL, CH);
        return;
    }
    static const char* names[2][4] = {{"bulk", "bulk_ef_loads", "bulk_ef_both", "bulk_ef_stores"},
                                      {"bulk_chunked", "bulk_chunked_ef_loads", "bulk_chunked_ef_both", "bulk_chunked_ef_stores"}};
    report(names[CH][POL], TB, STAGES, LAG, bps, us);
}

template <int TB, int STAGES>
static void bulk_lags() {
    for (int bps : {1, 2, 3, 4, 6, 8}) {
        run_bulk<TB, STAGES, 0>(bps);
        if constexpr (STAGES > 2) run_bulk<TB, STAGES, 1>(bps);
        if constexpr (STAGES > 3) run_bulk<TB, STAGES, 2>(bps);
    }
}

template <int TB, int STAGES, int POL, int CH>
static void hints_at() {
    for (int bps : {2, 3, 4, 6, 8}) {
        run_bulk<TB, STAGES, 0, POL, CH>(bps);
        run_bulk<TB, STAGES, 2, POL, CH>(bps);
    }
}

template <int TB, int STAGES>
static void hints() {
    hints_at<TB, STAGES, 0, 0>();
    hints_at<TB, STAGES, 1, 0>();
    hints_at<TB, STAGES, 2, 0>();
    hints_at<TB, STAGES, 3, 0>();
    hints_at<TB, STAGES, 0, 1>();
    hints_at<TB, STAGES, 2, 1>();
}

template <int U>
static void run_vector(int threads, int bps) {
    CHECK(cudaMemset(dout, 0, nbytes));
    float us = time_it([&] { vector_copy<U><<<sms * bps, threads>>>((const float4*)din, (float4*)dout, nbytes / 16); });
    if (!check()) std::printf("# vector wrong\n");
    report("vector", 16 * U, threads, 0, bps, us);
}

__global__ void fill(float* x, size_t n) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)(i % 4099);
}

int main(int argc, char** argv) {
    int log2n = argc > 1 ? std::atoi(argv[1]) : 28;
    bool narrow = argc > 2;
    nbytes = sizeof(float) << log2n;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    sms = p.multiProcessorCount;
    std::printf("# %s (sm_%d%d, %d SMs), 2^%d floats\n", p.name, p.major, p.minor, sms, log2n);
    std::printf("kernel,tile_bytes,stages,lag,blocks_per_sm,median_us,GBps\n");
    CHECK(cudaMalloc(&din, nbytes));
    CHECK(cudaMalloc(&dout, nbytes));
    fill<<<sms * 8, 256>>>((float*)din, nbytes / 4);
    CHECK(cudaDeviceSynchronize());
    float us = time_it([&] { CHECK(cudaMemcpyAsync(dout, din, nbytes, cudaMemcpyDeviceToDevice)); });
    report("memcpy", 0, 0, 0, 0, us);
    if (!narrow)
    for (int threads : {256, 512})
        for (int bps : {2, 4, 8}) {
            run_vector<1>(threads, bps);
            run_vector<2>(threads, bps);
            run_vector<4>(threads, bps);
        }
    if (!narrow) {
    bulk_lags<4096, 4>();
    bulk_lags<4096, 8>();
    bulk_lags<8192, 2>();
    bulk_lags<8192, 4>();
    bulk_lags<8192, 8>();
    bulk_lags<16384, 2>();
    bulk_lags<16384, 4>();
    bulk_lags<16384, 6>();
    bulk_lags<32768, 2>();
    bulk_lags<32768, 3>();
    bulk_lags<32768, 6>();
    bulk_lags<65536, 2>();
    bulk_lags<65536, 3>();
    }
    hints<2048, 8>();
    hints<4096, 4>();
    hints<4096, 8>();
    hints<8192, 4>();
    us = time_it([&] { CHECK(cudaMemcpyAsync(dout, din, nbytes, cudaMemcpyDeviceToDevice)); });
    report("memcpy", 0, 0, 0, 0, us);
    return 0;
}
