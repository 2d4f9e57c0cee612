// CUDA C++ twin of coop's port of NVIDIA's conjugateGradientMultiBlockCG
// sample (examples/kernels/src/conjugate_gradient.rs): the sample's
// kernel as it is (no launch bounds; nvcc's register choice lets three
// blocks of 512 share a multiprocessor), with the same entry name and
// coop's parameter words (each slice a pointer and a length), and the
// iterations it ran written out.
// conjugate_gradient_bench loads the PTX nvcc makes of this file
// (COOP_CUDA_PTX) and times both sides on the same grid.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstddef>

namespace cg = cooperative_groups;

#define CG_MAX_ITERATIONS 10000

__device__ void spmv(const int* rows, const int* cols, const float* val, int n, float alpha,
                     const float* x, float* y, const cg::grid_group& grid) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        int start = rows[i], count = rows[i + 1] - start;
        float acc = 0.0f;
        for (int j = 0; j < count; j++) acc += alpha * val[start + j] * x[cols[start + j]];
        y[i] = acc;
    }
}

__device__ void saxpy(const float* x, float* y, float a, int n, const cg::grid_group& grid) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) y[i] = a * x[i] + y[i];
}

__device__ void scale_and_saxpy(const float* x, float* y, float a, float scale, int n,
                                const cg::grid_group& grid) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) y[i] = a * x[i] + scale * y[i];
}

__device__ void copy(const float* x, float* y, int n, const cg::grid_group& grid) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) y[i] = x[i];
}

__device__ void dot(const float* a, const float* b, double* result, int n,
                    const cg::thread_block& block, const cg::grid_group& grid) {
    extern __shared__ double warp_sums[];
    double acc = 0.0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) acc += (double)(a[i] * b[i]);
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    acc = cg::reduce(warp, acc, cg::plus<double>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = acc;
    cg::sync(block);
    if (warp.meta_group_rank() == 0) {
        acc = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0;
        acc = cg::reduce(warp, acc, cg::plus<double>());
        if (warp.thread_rank() == 0) atomicAdd(result, acc);
    }
}

extern "C" __global__ void conjugate_gradient(
    const int* rows, size_t rows_len, const int* cols, size_t cols_len, const float* val,
    size_t val_len, float* x, size_t x_len, float* ax, size_t ax_len, float* p, size_t p_len,
    float* r, size_t r_len, double* result, size_t result_len, unsigned* iterations,
    size_t iterations_len, float tol) {
    cg::thread_block block = cg::this_thread_block();
    cg::grid_group grid = cg::this_grid();
    int n = (int)x_len;
    float alpha = 1.0f, alpham1 = -1.0f, r0 = 0.0f, r1, b, a, na;
    spmv(rows, cols, val, n, alpha, x, ax, grid);
    cg::sync(grid);
    saxpy(ax, r, alpham1, n, grid);
    cg::sync(grid);
    dot(r, r, result, n, block, grid);
    cg::sync(grid);
    r1 = *result;
    int k = 1;
    while (r1 > tol * tol && k <= CG_MAX_ITERATIONS) {
        if (k > 1) {
            b = r1 / r0;
            scale_and_saxpy(r, p, alpha, b, n, grid);
        } else {
            copy(r, p, n, grid);
        }
        cg::sync(grid);
        spmv(rows, cols, val, n, alpha, p, ax, grid);
        if (threadIdx.x == 0 && blockIdx.x == 0) *result = 0.0;
        cg::sync(grid);
        dot(p, ax, result, n, block, grid);
        cg::sync(grid);
        a = r1 / *result;
        saxpy(p, x, a, n, grid);
        na = -a;
        saxpy(ax, r, na, n, grid);
        r0 = r1;
        cg::sync(grid);
        if (threadIdx.x == 0 && blockIdx.x == 0) *result = 0.0;
        cg::sync(grid);
        dot(r, r, result, n, block, grid);
        cg::sync(grid);
        r1 = *result;
        k++;
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) *iterations = k - 1;
}
