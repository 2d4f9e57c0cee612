// CUB's side of the reduction benchmark (coop's is examples/reduce_bench.rs):
// the same sizes, types, operators and block-reduction kernel, timed the same
// way (median of CUDA-event timings), printing the same CSV rows, plus a
// device-to-device copy for the machine's memory bandwidth.
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <string>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

template <typename F>
float median_us(int runs, F f) {
    // Warm up for at least 20 ms, as coop's side does.
    cudaEvent_t w0, w1;
    CHECK(cudaEventCreate(&w0));
    CHECK(cudaEventCreate(&w1));
    CHECK(cudaEventRecord(w0));
    for (float ms = 0; ms < 20.0f;) {
        f();
        CHECK(cudaEventRecord(w1));
        CHECK(cudaEventSynchronize(w1));
        CHECK(cudaEventElapsedTime(&ms, w0, w1));
    }
    std::vector<float> t;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int i = 0; i < runs; ++i) {
        CHECK(cudaEventRecord(a));
        f();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    return t[runs / 2];
}

enum Op { SUM, MIN, MAX };

template <typename T>
void device_row(Op op, const char* opname, const char* ty, const T* d_in, size_t n, T* d_out, void* temp, size_t temp_bytes) {
    int runs = n > (1u << 26) ? 11 : 51;
    auto run = [&] {
        size_t bytes = temp_bytes;
        if (op == SUM) CHECK(cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, (int64_t)n));
        if (op == MIN) CHECK(cub::DeviceReduce::Min(temp, bytes, d_in, d_out, (int64_t)n));
        if (op == MAX) CHECK(cub::DeviceReduce::Max(temp, bytes, d_in, d_out, (int64_t)n));
    };
    float us = median_us(runs, run);
    printf("device,cub,%s,%s,%zu,%.3f,%.1f\n", opname, ty, n, us, n * sizeof(T) / (us * 1e-6) / 1e9);
}

template <typename T>
size_t temp_bytes_for(size_t n) {
    size_t a = 0, b = 0, c = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, a, (const T*)nullptr, (T*)nullptr, (int64_t)n));
    CHECK(cub::DeviceReduce::Min(nullptr, b, (const T*)nullptr, (T*)nullptr, (int64_t)n));
    CHECK(cub::DeviceReduce::Max(nullptr, c, (const T*)nullptr, (T*)nullptr, (int64_t)n));
    return std::max(a, std::max(b, c));
}

template <typename T>
__global__ void fill(T* x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (T)(i % 1000);
}

constexpr int REPS = 64;

template <typename T, int THREADS>
__global__ void block_reduce(const T* in, T* out) {
    using BR = cub::BlockReduce<T, THREADS>;
    __shared__ typename BR::TempStorage temp;
    T v = in[blockIdx.x * THREADS + threadIdx.x];
    T acc = 0;
    for (int i = 0; i < REPS; ++i) {
        T r = BR(temp).Sum(v + (T)i);
        acc += r;       // valid in thread 0
        __syncthreads(); // CUB requires it before reusing TempStorage
    }
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, int THREADS>
void block_row(const char* ty, int blocks) {
    size_t count = (size_t)blocks * THREADS;
    T *in, *out;
    CHECK(cudaMalloc(&in, count * sizeof(T)));
    CHECK(cudaMalloc(&out, blocks * sizeof(T)));
    std::vector<T> ones(count, (T)1);
    CHECK(cudaMemcpy(in, ones.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    float us = median_us(31, [&] { block_reduce<T, THREADS><<<blocks, THREADS>>>(in, out); CHECK(cudaGetLastError()); });
    printf("block,cub,%s,%d,%.3f,%.1f\n", ty, THREADS, us, (double)blocks * REPS / us);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
}

int main(int argc, char** argv) {
    // "block": only the block reductions; "sum28": only the f32 sum of 2^28
    // elements (for profiling); no argument: everything.
    std::string mode = argc > 1 ? argv[1] : "all";
    bool block_only = mode == "block";
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    fprintf(stderr, "CUB %d.%d.%d on %s (sm_%d%d)\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION,
            prop.name, prop.major, prop.minor);
    if (!block_only) {
    size_t big = (size_t)1 << 30;
    void* temp;
    size_t temp_bytes = temp_bytes_for<double>(big);
    CHECK(cudaMalloc(&temp, temp_bytes));
    float* f;
    CHECK(cudaMalloc(&f, big * sizeof(float)));
    CHECK(cudaMemset(f, 0, big * sizeof(float)));
    void* out;
    CHECK(cudaMalloc(&out, 64));
    if (mode == "sum28") {
        size_t n = (size_t)1 << 28;
        fill<float><<<1024, 256>>>(f, n);
        device_row<float>(SUM, "sum", "f32", f, n, (float*)out, temp, temp_bytes);
        return 0;
    }
    for (int log = 10; log <= 30; log += 2)
        device_row<float>(SUM, "sum", "f32", f, (size_t)1 << log, (float*)out, temp, temp_bytes);

    // Device-to-device copy of 2^28 f32: bytes read plus written.
    size_t n = (size_t)1 << 28;
    float us = median_us(11, [&] { CHECK(cudaMemcpy(f + n, f, n * sizeof(float), cudaMemcpyDeviceToDevice)); });
    printf("copy,cuda,memcpy,f32,%zu,%.3f,%.1f\n", n, us, 2.0 * n * sizeof(float) / (us * 1e-6) / 1e9);

    fill<float><<<1024, 256>>>(f, n);
    device_row<float>(SUM, "sum", "f32", f, n, (float*)out, temp, temp_bytes);
    device_row<float>(MIN, "min", "f32", f, n, (float*)out, temp, temp_bytes);
    device_row<float>(MAX, "max", "f32", f, n, (float*)out, temp, temp_bytes);
    double* d = (double*)f;
    fill<double><<<1024, 256>>>(d, n);
    device_row<double>(SUM, "sum", "f64", d, n, (double*)out, temp, temp_bytes);
    int* i = (int*)f;
    fill<int><<<1024, 256>>>(i, n);
    device_row<int>(SUM, "sum", "i32", i, n, (int*)out, temp, temp_bytes);
    device_row<int>(MIN, "min", "i32", i, n, (int*)out, temp, temp_bytes);
    device_row<int>(MAX, "max", "i32", i, n, (int*)out, temp, temp_bytes);
    unsigned* u = (unsigned*)f;
    fill<unsigned><<<1024, 256>>>(u, n);
    device_row<unsigned>(SUM, "sum", "u32", u, n, (unsigned*)out, temp, temp_bytes);
    long long* l = (long long*)f;
    fill<long long><<<1024, 256>>>(l, n);
    device_row<long long>(SUM, "sum", "i64", l, n, (long long*)out, temp, temp_bytes);
    CHECK(cudaDeviceSynchronize());
    }

    int blocks = prop.multiProcessorCount * 16;
    block_row<float, 128>("f32", blocks); block_row<int, 128>("i32", blocks);
    block_row<float, 256>("f32", blocks); block_row<int, 256>("i32", blocks);
    block_row<float, 512>("f32", blocks); block_row<int, 512>("i32", blocks);
    block_row<float, 1024>("f32", blocks); block_row<int, 1024>("i32", blocks);
    return 0;
}
