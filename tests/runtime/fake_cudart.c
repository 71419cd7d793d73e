/* A CUDA runtime that is not libcudart.so.13: built as
 * $(BUILD)/tests/runtime/libcudart.so.11.0 (soname libcudart.so.11.0),
 * with one device whose events read CLOCK_MONOTONIC and whose "device
 * memory" is host memory. tests/runtime.c loads it before ptkit needs a
 * runtime, or names it in PT_CUDART, and checks that ptkit uses it and
 * loads no other. Only the entry points ptkit binds are here; each call
 * is counted, so a test can tell which runtime answered. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

typedef struct fake_event {
    double ms;
} fake_event;

API long long fake_cudart_calls;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

API int cudaGetDeviceCount(int *n)
{
    fake_cudart_calls++;
    *n = 1;
    return 0;
}
API int cudaGetDevice(int *d)
{
    fake_cudart_calls++;
    *d = 0;
    return 0;
}
API int cudaGetDeviceProperties(void *prop, int d)
{
    fake_cudart_calls++;
    snprintf(prop, 256, "Fake CUDA 11.8 device %d", d);
    return 0;
}
API int cudaDeviceGetAttribute(int *v, int attr, int d)
{
    (void)attr, (void)d;
    fake_cudart_calls++;
    *v = 1;
    return 0;
}
API const char *cudaGetErrorString(int e)
{
    return e ? "fake runtime error" : "no error";
}
API int cudaRuntimeGetVersion(int *v)
{
    *v = 11080;
    return 0;
}
API int cudaEventCreateWithFlags(void **ev, unsigned flags)
{
    (void)flags;
    fake_cudart_calls++;
    *ev = calloc(1, sizeof(fake_event));
    return *ev ? 0 : 2;
}
API int cudaEventRecord(void *ev, void *s)
{
    (void)s;
    fake_cudart_calls++;
    ((fake_event *)ev)->ms = now_ms();
    return 0;
}
API int cudaEventQuery(void *ev)
{
    (void)ev;
    return 0;
}
API int cudaEventSynchronize(void *ev)
{
    (void)ev;
    return 0;
}
API int cudaEventElapsedTime(float *ms, void *a, void *b)
{
    *ms = (float)(((fake_event *)b)->ms - ((fake_event *)a)->ms);
    return 0;
}
API int cudaEventDestroy(void *ev)
{
    free(ev);
    return 0;
}
API int cudaMalloc(void **p, size_t n)
{
    *p = calloc(1, n);
    return *p ? 0 : 2;
}
API int cudaFree(void *p)
{
    free(p);
    return 0;
}
API int cudaMallocHost(void **p, size_t n)
{
    *p = malloc(n);
    return *p ? 0 : 2;
}
API int cudaFreeHost(void *p)
{
    free(p);
    return 0;
}
API int cudaMemsetAsync(void *p, int v, size_t n, void *s)
{
    (void)s;
    memset(p, v, n);
    return 0;
}
API int cudaMemcpyAsync(void *d, const void *src, size_t n, int kind, void *s)
{
    (void)kind, (void)s;
    memcpy(d, src, n);
    return 0;
}
API int cudaStreamCreateWithFlags(void **s, unsigned flags)
{
    (void)flags;
    *s = (void *)0x5;
    return 0;
}
API int cudaStreamSynchronize(void *s)
{
    (void)s;
    return 0;
}
API int cudaStreamDestroy(void *s)
{
    (void)s;
    return 0;
}
