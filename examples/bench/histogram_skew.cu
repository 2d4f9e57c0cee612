// Why skewed bytes are slow: variants of a 256-bin byte histogram in
// shared memory, beside CUB's DeviceHistogram::HistogramEven, on the data
// histogram_calls_bench uses (a hash of the index; skewed: three quarters
// one value). Each variant is the shape of coop's byte kernel (a grid-stride
// loop over 16-byte chunks, counters in shared memory, then one global
// atomic a non-zero counter) with one thing changed:
//   rle/S      a run of equal bytes within a chunk is one atomicAdd of its
//              length (coop's kernel), S sets of counters (lane % S)
//   inc/S      every byte its own atomicAdd(.., 1)
//   rle2/S     rle, two chunks loaded before either is counted
//   inc2/1, inc4/1   inc/1 with two or four chunks loaded before any is
//              counted
//   inc-even/1, inc2-even/1   inc/1 (and inc2/1) with each block taking one
//              contiguous range of chunks (an even share) instead of a
//              grid-stride loop
//   rle-cub    rle, tiles dealt to blocks in turn: each block a tile of
//              256 threads x 16 bytes at a time, blocked, one set
// CUB runs with 64-bit offsets (`cub`, what histogram_calls_bench calls)
// and 32-bit ones (`cub int`).
// Prints one CSV row a variant and data set: median of 20 timed calls
// (events), GB/s, and whether the counts match the host's.
// Build and run on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o histogram_skew histogram_skew.cu && ./histogram_skew
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#define CHECK(x)                                                                       \
    do {                                                                               \
        cudaError_t e = (x);                                                           \
        if (e != cudaSuccess) {                                                        \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

static uint64_t hash(uint64_t i) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull ^ 0x5bd1e995ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 32);
}

// The 16 bytes of `c` into `bins`, a run of equal bytes as one atomicAdd
// of its length.
__device__ __forceinline__ void count_runs(unsigned* bins, uint4 c) {
    unsigned w[4] = {c.x, c.y, c.z, c.w};
    unsigned key = w[0] & 0xff, n = 1;
#pragma unroll
    for (int j = 1; j < 16; ++j) {
        unsigned b = (w[j / 4] >> (8 * (j % 4))) & 0xff;
        if (b == key) {
            ++n;
        } else {
            atomicAdd(bins + key, n);
            key = b;
            n = 1;
        }
    }
    atomicAdd(bins + key, n);
}

template <int SETS, bool RLE, int CHUNKS, bool EVEN = false>
__global__ void __launch_bounds__(256) bytes(const uint4* __restrict__ in, size_t chunks,
                                             unsigned* __restrict__ out) {
    constexpr int STRIDE = SETS > 1 ? 257 : 256;
    __shared__ unsigned s[SETS * STRIDE];
    for (int k = threadIdx.x; k < SETS * STRIDE; k += blockDim.x) s[k] = 0;
    __syncthreads();
    unsigned* mine = s + (threadIdx.x % 32 % SETS) * STRIDE;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    auto count = [&](uint4 c) {
        if (RLE) {
            count_runs(mine, c);
        } else {
            unsigned w[4] = {c.x, c.y, c.z, c.w};
#pragma unroll
            for (int j = 0; j < 16; ++j) atomicAdd(mine + ((w[j / 4] >> (8 * (j % 4))) & 0xff), 1u);
        }
    };
    if (EVEN) {
        // Even share: block b takes one contiguous range of chunks, its
        // threads striding through it by the block's size.
        size_t per = (chunks + gridDim.x - 1) / gridDim.x;
        size_t lo = blockIdx.x * per, hi = lo + per < chunks ? lo + per : chunks;
        size_t i = lo + threadIdx.x;
        if (CHUNKS == 2) {
            for (; i + blockDim.x < hi; i += 2 * blockDim.x) {
                uint4 a = in[i], b = in[i + blockDim.x];
                count(a);
                count(b);
            }
        }
        for (; i < hi; i += blockDim.x) count(in[i]);
    } else {
        size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (CHUNKS == 4) {
            for (; i + 3 * stride < chunks; i += 4 * stride) {
                uint4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
                count(a);
                count(b);
                count(c);
                count(d);
            }
        }
        if (CHUNKS == 2) {
            for (; i + stride < chunks; i += 2 * stride) {
                uint4 a = in[i], b = in[i + stride];
                count(a);
                count(b);
            }
        }
        for (; i < chunks; i += stride) count(in[i]);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 256; k += blockDim.x) {
        unsigned t = 0;
        for (int q = 0; q < SETS; ++q) t += s[q * STRIDE + k];
        if (t) atomicAdd(out + k, t);
    }
}

// CUB's arrangement: each block takes whole tiles (256 threads x 16 bytes,
// each thread 16 consecutive bytes), tiles dealt to blocks in turn.
__global__ void __launch_bounds__(256) bytes_tiles(const uint4* __restrict__ in, size_t chunks,
                                                   unsigned* __restrict__ out) {
    __shared__ unsigned s[257];
    for (int k = threadIdx.x; k < 257; k += blockDim.x) s[k] = 0;
    __syncthreads();
    for (size_t tile = blockIdx.x; tile * 256 < chunks; tile += gridDim.x) {
        size_t i = tile * 256 + threadIdx.x;
        if (i >= chunks) break;
        count_runs(s, in[i]);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 256; k += blockDim.x)
        if (s[k]) atomicAdd(out + k, s[k]);
}

struct Timer {
    cudaEvent_t a, b;
    Timer() { CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b)); }
    template <typename F> float median(F f) {
        std::vector<float> t;
        for (int r = 0; r < 3; ++r) f();
        for (int r = 0; r < 20; ++r) {
            CHECK(cudaEventRecord(a));
            f();
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, a, b));
            t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    }
};

int main() {
    int dev = 0, sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    printf("# %s, %d SMs, CUB %d.%d.%d\n", p.name, sms, CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
           CUB_SUBMINOR_VERSION);
    printf("log2_n,data,variant,blocks,median_us,gb_per_s,correct\n");
    for (int log2n : {24, 28}) {
        size_t n = size_t(1) << log2n;
        for (int skewed = 0; skewed < 2; ++skewed) {
            std::vector<unsigned char> h(n);
            unsigned char common = (unsigned char)(hash(12345) >> 2);
            for (size_t i = 0; i < n; ++i) {
                uint64_t x = hash(i);
                h[i] = (skewed && x % 4 != 0) ? common : (unsigned char)(x >> 2);
            }
            std::vector<unsigned> ref(256, 0);
            for (auto b : h) ref[b]++;
            unsigned char* d_in;
            unsigned* d_out;
            CHECK(cudaMalloc(&d_in, n));
            CHECK(cudaMalloc(&d_out, 257 * sizeof(unsigned)));
            CHECK(cudaMemcpy(d_in, h.data(), n, cudaMemcpyHostToDevice));
            Timer timer;
            const char* data = skewed ? "skewed" : "uniform";
            auto check = [&]() {
                std::vector<unsigned> got(256);
                CHECK(cudaMemcpy(got.data(), d_out, 256 * 4, cudaMemcpyDeviceToHost));
                return got == ref;
            };
            auto row = [&](const char* name, int blocks, auto launch) {
                CHECK(cudaMemset(d_out, 0, 257 * 4));
                launch();
                CHECK(cudaDeviceSynchronize());
                bool ok = check();
                float ms = timer.median([&] { launch(); });
                CHECK(cudaGetLastError());
                printf("%d,%s,%s,%d,%.1f,%.1f,%s\n", log2n, data, name, blocks, ms * 1e3,
                       n / (ms * 1e-3) / 1e9, ok ? "yes" : "NO");
            };
            size_t chunks = n / 16;
            const uint4* in4 = (const uint4*)d_in;
            // CUB
            size_t temp_bytes = 0;
            CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, d_in, d_out, 257, 0, 256,
                                                      (long long)n));
            void* temp;
            CHECK(cudaMalloc(&temp, temp_bytes));
            row("cub", 0, [&] {
                cub::DeviceHistogram::HistogramEven(temp, temp_bytes, d_in, d_out, 257, 0, 256,
                                                    (long long)n);
            });
            // The same call with 32-bit offsets (what a caller passing an
            // int gets): another instantiation of CUB's kernels.
            size_t temp_int_bytes = 0;
            CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_int_bytes, d_in, d_out, 257, 0,
                                                      256, (int)n));
            void* temp_int;
            CHECK(cudaMalloc(&temp_int, temp_int_bytes));
            row("cub int", 0, [&] {
                cub::DeviceHistogram::HistogramEven(temp_int, temp_int_bytes, d_in, d_out, 257, 0,
                                                    256, (int)n);
            });
            for (int per_sm : {4, 8, 16}) {
                int blocks = sms * per_sm;
#define V(NAME, ...)                                                                   \
    row(NAME, blocks, [&] {                                                            \
        CHECK(cudaMemsetAsync(d_out, 0, 256 * 4));                                     \
        __VA_ARGS__<<<blocks, 256>>>(in4, chunks, d_out);                              \
    })
                V("rle/1", bytes<1, true, 1>);
                V("rle/8", bytes<8, true, 1>);
                V("inc/1", bytes<1, false, 1>);
                V("inc/8", bytes<8, false, 1>);
                V("inc2/1", bytes<1, false, 2>);
                V("inc4/1", bytes<1, false, 4>);
                V("inc-even/1", bytes<1, false, 1, true>);
                V("inc2-even/1", bytes<1, false, 2, true>);
                V("rle-cub", bytes_tiles);
#undef V
            }
            CHECK(cudaFree(temp));
            CHECK(cudaFree(temp_int));
            CHECK(cudaFree(d_in));
            CHECK(cudaFree(d_out));
        }
    }
    return 0;
}
