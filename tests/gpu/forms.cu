/* The GPU suite's view of tests/kernels/: the SGEMM and the attention
 * pass in their five forms (bare, ptkit in shared memory, ptkit in
 * registers, the hand-written pattern, ptkit with END's DONE a release
 * store; the objects bench-gpu links too),
 * launched on the same inputs, their outputs hashed bit for bit. */
#include "kernels.h"
#include "../kernels/inputs.h"

#include <cuda_runtime.h>
#include <string.h>

#include <vector>

#define GEMM_ARGS int, int, int, float, const float *, const float *, float, float *
#define ATT_ARGS const float *, const float *, const float *, int, float, float *, float *, float *
extern "C" __global__ void gemm_orig(GEMM_ARGS, pt_dev_buf);
extern "C" __global__ void gemm_ptkit(GEMM_ARGS, pt_dev_buf);
extern "C" __global__ void gemm_reg(GEMM_ARGS, pt_dev_buf);
extern "C" __global__ void gemm_hand(GEMM_ARGS, long long *);
extern "C" __global__ void gemm_release(GEMM_ARGS, pt_dev_buf);
extern "C" __global__ void attention_orig(ATT_ARGS, pt_dev_buf);
extern "C" __global__ void attention_ptkit(ATT_ARGS, pt_dev_buf);
extern "C" __global__ void attention_reg(ATT_ARGS, pt_dev_buf);
extern "C" __global__ void attention_hand(ATT_ARGS, long long *);
extern "C" __global__ void attention_release(ATT_ARGS, pt_dev_buf);

/* FNV-1a over the floats' bits. */
static unsigned long long hash_of(const float *d, size_t n, int *err)
{
    std::vector<float> h(n);
    unsigned long long v = 1469598103934665603ull;
    cudaError_t e = cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess && !*err)
        *err = (int)e;
    for (size_t i = 0; i < n; i++) {
        unsigned u;
        memcpy(&u, &h[i], sizeof u);
        v = (v ^ u) * 1099511628211ull;
    }
    return v;
}

/* After a form's launch: its error, or the wait's, in *err (the first
 * one kept), and the hash of its n output floats at d. */
static unsigned long long launched(const float *d, size_t n, int *err)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess && !*err)
        *err = (int)e;
    return hash_of(d, n, err);
}

/* The records reset by pt_dev_reset before each form that records: each
 * writes them afresh, DONE 1 and not one more for each form before it. */
static void reset_records(pt_dev_records *recs, int *err)
{
    int rc = pt_dev_reset(recs, NULL);
    if (rc != 0 && !*err)
        *err = rc;
}

static float *upload(const std::vector<float> &h, int *err)
{
    float *d = NULL;
    cudaError_t e = cudaMalloc(&d, h.size() * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
    if (e != cudaSuccess && !*err)
        *err = (int)e;
    return d;
}

extern "C" int gpu_forms_gemm(int n, pt_dev_records *recs, unsigned long long hash[GPU_NFORMS])
{
    pt_dev_buf buf = pt_dev_arg(recs);
    int err = 0;
    std::vector<float> c = kernel_inputs((size_t)n * n, 3);
    float *A = upload(kernel_inputs((size_t)n * n, 1), &err);
    float *B = upload(kernel_inputs((size_t)n * n, 2), &err);
    float *C = upload(c, &err);
    long long *times = NULL;
    if (cudaMalloc(&times, sizeof(long long) * 3 * (n / 32) * (n / 32)) != cudaSuccess && !err)
        err = (int)cudaErrorMemoryAllocation;
    dim3 grid(n / 32, n / 32);
    for (int form = 0; form < GPU_NFORMS && !err; form++) {
        /* C is read and written (beta = 0.5): each form starts from the same C. */
        cudaError_t e = cudaMemcpy(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            err = (int)e;
            break;
        }
        reset_records(recs, &err);
        if (form == 0)
            gemm_orig<<<grid, 1024>>>(n, n, n, 1.0f, A, B, 0.5f, C, pt_dev_arg(NULL));
        else if (form == 1)
            gemm_ptkit<<<grid, 1024>>>(n, n, n, 1.0f, A, B, 0.5f, C, buf);
        else if (form == 2)
            gemm_reg<<<grid, 1024>>>(n, n, n, 1.0f, A, B, 0.5f, C, buf);
        else if (form == 3)
            gemm_hand<<<grid, 1024>>>(n, n, n, 1.0f, A, B, 0.5f, C, times);
        else
            gemm_release<<<grid, 1024>>>(n, n, n, 1.0f, A, B, 0.5f, C, buf);
        hash[form] = launched(C, c.size(), &err);
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(times);
    return err;
}

extern "C" int gpu_forms_attention(int heads, int seq, pt_dev_records *recs,
                                   unsigned long long hash[GPU_NFORMS])
{
    enum { D = 64, BR = 32, BC = 32 };
    pt_dev_buf buf = pt_dev_arg(recs);
    int err = 0;
    size_t qkv = (size_t)heads * seq * D, lm = (size_t)heads * seq;
    size_t smem = sizeof(float) * ((BR + 2 * BC) * D + BR * BC);
    float *Q = upload(kernel_inputs(qkv, 4), &err), *K = upload(kernel_inputs(qkv, 5), &err);
    float *V = upload(kernel_inputs(qkv, 6), &err), *O = upload(std::vector<float>(qkv), &err);
    float *l = upload(std::vector<float>(lm), &err), *m = upload(std::vector<float>(lm), &err);
    long long *times = NULL;
    if (cudaMalloc(&times, sizeof(long long) * 6 * heads) != cudaSuccess && !err)
        err = (int)cudaErrorMemoryAllocation;
    dim3 grid(1, heads);
    for (int form = 0; form < GPU_NFORMS && !err; form++) {
        /* O, l and m start at 0 for each form. */
        cudaMemset(O, 0, qkv * sizeof(float));
        cudaMemset(l, 0, lm * sizeof(float));
        cudaMemset(m, 0, lm * sizeof(float));
        reset_records(recs, &err);
        if (form == 0)
            attention_orig<<<grid, BR, smem>>>(Q, K, V, seq, 0.125f, l, m, O, pt_dev_arg(NULL));
        else if (form == 1)
            attention_ptkit<<<grid, BR, smem>>>(Q, K, V, seq, 0.125f, l, m, O, buf);
        else if (form == 2)
            attention_reg<<<grid, BR, smem>>>(Q, K, V, seq, 0.125f, l, m, O, buf);
        else if (form == 3)
            attention_hand<<<grid, BR, smem>>>(Q, K, V, seq, 0.125f, l, m, O, times);
        else
            attention_release<<<grid, BR, smem>>>(Q, K, V, seq, 0.125f, l, m, O, buf);
        hash[form] = launched(O, qkv, &err);
    }
    cudaFree(Q);
    cudaFree(K);
    cudaFree(V);
    cudaFree(O);
    cudaFree(l);
    cudaFree(m);
    cudaFree(times);
    return err;
}
