// Which forms of the shared::cta -> shared::cluster bulk copy and reduction
// run: into another block or into the issuing block, in a cluster launch
// or not. One case a process (a fault ends the process's context):
//   nvcc -O2 -arch=sm_90 -o probe dsmem_probe.cu
//   ./probe CLUSTER MODE SELF
// CLUSTER 0 launches without a cluster dimension, 1 or 2 with clusters of
// that many blocks; MODE 0 copies, 1 adds (both with `mapa` addresses), 2
// and 3 the same with the block's own shared::cta addresses; SELF 1 sends
// into the issuing block, 0 into the next. docs/results/dsmem-probe-h200.txt
// has the output on an H200.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ unsigned mapa(unsigned a, unsigned r) { unsigned o; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(o) : "r"(a), "r"(r)); return o; }
extern "C" __global__ void probe(int mode, int to_self, unsigned* out) {
    __shared__ alignas(128) unsigned mine[64];
    __shared__ alignas(128) unsigned inbox[64];
    __shared__ alignas(8) unsigned long long bar;
    unsigned t = threadIdx.x;
    unsigned r, n;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    mine[t] = t + 1; inbox[t] = 100;
    unsigned b = sa(&bar);
    if (t == 0) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(b)); asm volatile("fence.mbarrier_init.release.cluster;"); }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 256;" :: "r"(b) : "memory");
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
    unsigned to = to_self ? r : (r + 1) % n;
    unsigned via = mode >= 2 ? sa(inbox) : mapa(sa(inbox), to);
    unsigned viab = mode >= 2 ? b : mapa(b, to);
    if (t == 0) {
        if (mode == 0 || mode == 2) asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];" :: "r"(via), "r"(sa(mine)), "r"(viab) : "memory");
        else asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], 256, [%2];" :: "r"(via), "r"(sa(mine)), "r"(viab) : "memory");
    }
    unsigned done = 0;
    while (!done) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(b) : "memory");
    out[blockIdx.x * 64 + t] = inbox[t];
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
}
int main(int argc, char** argv) {
    int cluster = atoi(argv[1]), mode = atoi(argv[2]), self = atoi(argv[3]);
    unsigned* out; cudaMalloc(&out, 4 * 64 * 4);
    const char* modes[] = {"copy (mapa)", "reduce (mapa)", "copy (own address)", "reduce (own address)"};
    cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(4); cfg.blockDim = dim3(64);
    cudaLaunchAttribute a[1]; a[0].id = cudaLaunchAttributeClusterDimension; a[0].val.clusterDim.x = cluster ? cluster : 1; a[0].val.clusterDim.y = 1; a[0].val.clusterDim.z = 1;
    cfg.attrs = a; cfg.numAttrs = cluster ? 1 : 0;
    cudaError_t e = cudaLaunchKernelEx(&cfg, probe, mode, self, out);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    unsigned h[1] = {0}; cudaMemcpy(h, out + 5, 4, cudaMemcpyDeviceToHost);
    printf("cluster attr %d, %-22s into %s: %s (element 5 = %u)\n", cluster, modes[mode], self ? "itself" : "the next block", cudaGetErrorString(e), h[0]);
}
