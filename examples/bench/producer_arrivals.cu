// Which arrivals of a warp-specialized producer does compute-sanitizer's
// synccheck accept? One kernel a mode copies 2^20 floats through a ring of
// four stages of 2048, warp 0 producing with cp.async (16-byte chunks), the
// other 256 threads consuming; the host checks the copy.
//   1: cuda::pipeline with producer and consumer roles (libcu++'s
//      memcpy_async + producer_commit: cp.async.mbarrier.arrive, then an
//      ordinary arrival)
//   2: the same in raw PTX: cp.async.mbarrier.arrive + mbarrier.arrive,
//      a "full" barrier of 32 arrivals
//   3: cp.async.mbarrier.arrive.noinc + mbarrier.arrive, 64 arrivals
//      (coop's Producer)
//   4: cp.async.mbarrier.arrive.noinc alone, 32 arrivals
// Build and run on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o producer_arrivals examples/bench/producer_arrivals.cu
//   for m in 1 2 3 4; do compute-sanitizer --tool synccheck ./producer_arrivals $m; done
// Results on an H200: docs/results/synccheck-producer-arrivals-h200.txt.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;
constexpr int TILE = 2048, STAGES = 4;

__global__ void k1(const float* in, size_t n, float* out) {
    __shared__ alignas(128) float ring[STAGES][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    size_t tiles = n / TILE; int s = 0;
    if (producer) {
        for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
            pipe.producer_acquire();
            for (int c = threadIdx.x; c < TILE / 4; c += 32)
                cuda::memcpy_async(&ring[s][4 * c], in + k * TILE + 4 * c, cuda::aligned_size_t<16>(16), pipe);
            pipe.producer_commit(); s = (s + 1) % STAGES;
        }
        return;
    }
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        pipe.consumer_wait();
        for (int i = threadIdx.x - 32; i < TILE; i += blockDim.x - 32) out[k * TILE + i] = ring[s][i];
        pipe.consumer_release(); s = (s + 1) % STAGES;
    }
}

__device__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

template <int MODE>
__global__ void kraw(const float* in, size_t n, float* out) {
    __shared__ alignas(128) float ring[STAGES][TILE];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(&full[s])), "r"(MODE == 3 ? 64 : 32));
            asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(&empty[s])), "r"(blockDim.x - 32));
        }
    }
    __syncthreads();
    size_t tiles = n / TILE; int s = 0; unsigned round = 0;
    auto wait = [](unsigned long long* b, unsigned parity) {
        unsigned done = 0;
        while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(smem(b)), "r"(parity) : "memory");
    };
    if (threadIdx.x < 32) {
        for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
            if (round > 0) wait(&empty[s], (round - 1) & 1);
            for (int c = threadIdx.x; c < TILE / 4; c += 32)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&ring[s][4 * c])), "l"(in + k * TILE + 4 * c) : "memory");
            if (MODE == 2) {
                asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(smem(&full[s])) : "memory");
                asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem(&full[s])) : "memory");
            } else if (MODE == 3) {
                asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(smem(&full[s])) : "memory");
                asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem(&full[s])) : "memory");
            } else {
                asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(smem(&full[s])) : "memory");
            }
            if (++s == STAGES) { s = 0; ++round; }
        }
        return;
    }
    for (size_t k = blockIdx.x; k < tiles; k += gridDim.x) {
        wait(&full[s], round & 1);
        for (int i = threadIdx.x - 32; i < TILE; i += blockDim.x - 32) out[k * TILE + i] = ring[s][i];
        asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(smem(&empty[s])) : "memory");
        if (++s == STAGES) { s = 0; ++round; }
    }
}

int main(int argc, char** argv) {
    int mode = atoi(argv[1]);
    size_t n = 1 << 20;
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = i * 0.5f;
    float *in, *out;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, n * 4);
    cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
    cudaMemset(out, 0, n * 4);
    if (mode == 1) k1<<<132, 288>>>(in, n, out);
    if (mode == 2) kraw<2><<<132, 288>>>(in, n, out);
    if (mode == 3) kraw<3><<<132, 288>>>(in, n, out);
    if (mode == 4) kraw<4><<<132, 288>>>(in, n, out);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<float> g(n);
    cudaMemcpy(g.data(), out, n * 4, cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += g[i] != h[i];
    printf("mode %d: %s, %zu wrong\n", mode, cudaGetErrorString(e), bad);
    return 0;
}
