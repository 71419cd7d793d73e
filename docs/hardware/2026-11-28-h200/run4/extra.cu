#include <cuda.h>
#include <cstdio>
#include <cstring>
struct B { long long *data; int n, m; long long x; };
__global__ void k3(int a, B b, int c) { if (threadIdx.x == 0) { b.data[0] = a; b.data[1] = c; b.data[2] = b.n; } }
__global__ void k2(int a, B b) { if (threadIdx.x == 0) { b.data[0] = a; b.data[1] = -7; b.data[2] = b.n; } }
static void show(const char *what, cudaError_t e) { printf("%-60s %s\n", what, cudaGetErrorString(e)); cudaGetLastError(); }
int main() {
  long long *d; cudaMalloc(&d, 64 * sizeof(long long)); cudaMemset(d, 0, 64 * 8);
  cudaStream_t st; cudaStreamCreate(&st);
  for (int which = 0; which < 2; which++) {
    void *f = which ? (void *)k3 : (void *)k2;
    int a = 11, c = 33; B b = { d, 5, 0, 0 };
    void *args3[] = { &a, &b, &c }, *args2[] = { &a, &b };
    cudaKernelNodeParams p = {}; p.func = f; p.gridDim = dim3(1); p.blockDim = dim3(32); p.kernelParams = which ? args3 : args2;
    cudaGraph_t g; cudaGraphCreate(&g, 0); cudaGraphNode_t n; show("add node", cudaGraphAddKernelNode(&n, g, NULL, 0, &p));
    cudaGraphExec_t ex; show("instantiate", cudaGraphInstantiateWithFlags(&ex, g, 0));
    size_t off1, sz1; cudaFuncGetParamInfo(f, 1, &off1, &sz1);
    char buf[256]; memset(buf, 0, sizeof buf); memcpy(buf, &a, 4); B b2 = { d + 8, 6, 0, 0 }; memcpy(buf + off1, &b2, sizeof b2);
    size_t size = off1 + sizeof b2;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END };
    cudaKernelNodeParams q = p; q.kernelParams = NULL; q.extra = extra;
    char lbl[128]; snprintf(lbl, sizeof lbl, "%s: SetParams extra, size %zu (records at %zu)", which ? "k3 (records NOT last)" : "k2 (records last)", size, off1);
    show(lbl, cudaGraphExecKernelNodeSetParams(ex, n, &q));
    show("launch", cudaGraphLaunch(ex, st)); show("sync", cudaStreamSynchronize(st));
    long long h[16]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("  records: [%lld %lld %lld]  set: [%lld %lld %lld]\n", h[0], h[1], h[2], h[8], h[9], h[10]);
    // a larger size
    size_t big = size + 8; void *extra2[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &big, CU_LAUNCH_PARAM_END };
    q.extra = extra2; show("  SetParams extra, size + 8", cudaGraphExecKernelNodeSetParams(ex, n, &q));
    // kernelParams back
    q.extra = NULL; q.kernelParams = which ? args3 : args2; show("  SetParams kernelParams back", cudaGraphExecKernelNodeSetParams(ex, n, &q));
    size_t o, s; show("  FuncGetParamInfo past the end", cudaFuncGetParamInfo(f, which ? 3 : 2, &o, &s));
    cudaMemset(d, 0, 64 * 8);
  }
  // graph node params from capture: extra or kernelParams?
  cudaGraph_t g; cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal); B b = { d, 5, 0, 0 }; k2<<<1, 32, 0, st>>>(1, b); cudaStreamEndCapture(st, &g);
  size_t nn = 0; cudaGraphGetNodes(g, NULL, &nn); cudaGraphNode_t nodes[4]; cudaGraphGetNodes(g, nodes, &nn);
  cudaKernelNodeParams kp; show("captured GetParams", cudaGraphKernelNodeGetParams(nodes[0], &kp));
  printf("  captured: kernelParams %p extra %p\n", (void *)kp.kernelParams, (void *)kp.extra);
  return 0;
}
