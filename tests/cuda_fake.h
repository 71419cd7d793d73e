/* A fake CUDA runtime for the tests, installed with pt__cuda_set_shim().
 *
 * It is a working GPU whose "device memory" is host memory (so a test can
 * write block records into a device buffer by hand) and whose events read
 * a clock the test moves (fake.now_ms), so elapsed times are exact. Each
 * call can be made to fail, and the calls are counted. ptkit's two kernels
 * are emulated: the calibration returns the figures in fake.cal_* (no
 * marks counted unless a test sets cal_mark_cycles and cal_marks, so the
 * mark's cost is unknown and nothing is taken out of phases), and the
 * reduction runs pt__red_slot() on the host, as the real kernel does on the
 * device. Each Criterion test runs in a process of its own, so the state
 * is a plain static. */
#ifndef PT_TESTS_CUDA_FAKE_H
#define PT_TESTS_CUDA_FAKE_H

#include "pt_calibrate.h"
#include "pt_fold_math.h"
#include "gpu/calibrate.h"
#include "gpu/cuda.h"
#include "gpu/records.h"
#include "gpu/event_pool.h"
#include "gpu/fold.h"
#include "gpu/memory.h"
#include "gpu/queue.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The stream cudaStreamCreateWithFlags makes, each time. */
#define FAKE_MADE_STREAM ((pt_stream)(uintptr_t)0x5)

typedef struct fake_event {
    double ms;                /* fake.now_ms when last recorded */
    double due_us;            /* a paced GPU's (below): when it completes, on fake_wall_us */
} fake_event;

typedef struct fake_gpu {
    double now_ms;            /* what the next recorded event reads */
    int device_count;
    pt__cuerr count_err;      /* cudaGetDeviceCount's answer */
    pt__cuerr create_err, record_err, sync_err, malloc_err, mallochost_err, memcpy_err,
        memset_err, library_err, launch_err;
    int records_before_err;   /* successful records before record_err applies; -1: at once */
    pt__cuerr stream_err;     /* cudaStreamCreateWithFlags's, after streams_before_err made */
    int streams_before_err;
    int not_ready;            /* cudaEventQuery says not ready */
    long long created, destroyed, records, syncs, queries, elapsed, mallocs, frees, memcpys,
        memsets, launches, reduce_launches;
    double synced_ms[64];     /* the end events waited for, in order */
    int nsynced;
    long long cal_tick, cal_cycles, cal_ns, cal_smid; /* the calibration kernel's answer */
    long long cal_mark_cycles, cal_marks; /* its marks: cycles charged, marks counted */
    int attr[128], attr_set[128]; /* cudaDeviceGetAttribute's answers; 4 where not set */
    size_t mem_free, mem_total; /* cudaMemGetInfo's answer */
    pt__cuerr meminfo_err;
    long long meminfos;
    long long count_calls;    /* cudaGetDeviceCount calls: the device's probes */
    long long waits;          /* cudaStreamWaitEvent calls */
    long long stream_syncs;   /* cudaStreamSynchronize calls */
    pt_stream copied_stream;  /* the last cudaMemcpyAsync's */
    pt_stream capturing;      /* the stream cudaStreamIsCapturing says is captured (NULL: none) */
    long long graph_launches; /* cudaGraphLaunch calls */
    void *graph_exec;         /* the last one's graph */
    void (*graph_replay)(void *exec); /* what a replay does (the test's kernels), or NULL */
    long long capture_asks;
    /* A GPU with a pace, for benchmarks (0: every call completes at
     * once): each graph replay keeps it busy pace_us of wall time from
     * the later of its launch and the end of the work before it, so an
     * event recorded after a replay completes then; a query says not
     * ready before, a wait spins until then. busy_until_us: when the
     * work launched so far ends. */
    double pace_us, busy_until_us;
    /* The streams ptkit makes (all 0x5 here) carry copies alone, which
     * take no time: an event recorded on one completes with the last
     * event that stream was made to wait for (side_due_us, once
     * side_waited), not with all the work launched so far. */
    double side_due_us;
    int side_waited;
    /* cudaMemcpyAsync leaves what it wrote out of the CPU's caches, as a
     * GPU's copy into pinned memory does (x86; elsewhere a plain copy):
     * the time its flushing takes is added up in flushed_us, for a
     * benchmark to leave out. */
    int cold_copies;
    double flushed_us;
    /* Called as a wait for the paced GPU begins, with the wall time it
     * waits until (a test's look at what the host did before it). */
    void (*on_wait)(double until_us);
    /* cudaGraphAddMemsetNode / cudaGraphAddKernelNode: the nodes added (handles
     * 1, 2, ... in order), the last memsets' and kernel's parameters and
     * dependencies. */
    long long graph_nodes, memset_nodes, kernel_nodes;
    pt__cu_memset memset_params[2];
    const void *kernel_params;
    void *deps[4];
    size_t ndeps;
    pt_stream waited_stream;  /* the last one's stream and event */
    pt__cuevent waited_ev;
    /* cudaStreamGetCaptureInfo: asked, and the node it says the
     * captured stream's next operation follows (a new one each time: the
     * kernel just captured); copy_err makes cudaGraphAddMemcpyNode1D
     * refuse, aim_err cudaGraphExecMemcpyNodeSetParams1D. */
    long long capture_infos, copy_nodes, aims, mallochosts;
    void *capture_dep;
    pt__cuerr copy_err, aim_err;
    /* The copy nodes: what each copies where, run by every cudaGraphLaunch
     * after the test's replay (the kernels), in order; their copies. */
    struct {
        void *node, *dst, *dep;
        const void *src;
        size_t bytes;
    } copy[8];
    long long graph_copies;
    /* A graph's kernel nodes given other arguments (fake_install_ring()):
     * the last kernel launched (the test's cudaLaunchKernel sets it, for
     * cudaGraphKernelNodeGetParams), each kernel's parameters' sizes
     * (nparams of them), and where each node's last argument, its
     * pt_dev_buf, points now; the calls, and the program's last error. */
    struct {
        const void *func;
        void **args;
    } launched;
    size_t param_size[8];
    int nparams;
    /* One other kernel's parameters (odd_func's, when set): odd_nparams of
     * odd_size. */
    const void *odd_func;
    size_t odd_size[8];
    int odd_nparams;
    struct {
        void *node;
        long long *data;
    } kaim[8];
    int nkaim;
    long long kernel_aims;
    pt__cuerr kaim_err, last_error;
    /* Calls that returned an error compute-sanitizer would report: an
     * argument asked past the last, and cudaGetLastError returning it. */
    long long api_errors;
} fake_gpu;

static fake_gpu fake;

/* The host addresses ptkit registered its kernels under, and the fatbins'
 * registrations (library_err makes the runtime refuse their code: the
 * first launch fails with it, as a real runtime's would). */
static struct {
    pt__cukernel calibrate, reduce;
    int fatbins, functions, ends;
} fake_reg;

static pt__cuerr f_count(int *n)
{
    fake.count_calls++;
    if (fake.count_err)
        return fake.count_err;
    *n = fake.device_count;
    return 0;
}
static pt__cuerr f_device(int *d)
{
    *d = 0;
    return 0;
}
static pt__cuerr f_props(void *prop, int d)
{
    snprintf(prop, 256, "Fake GPU %d", d);
    return 0;
}
static pt__cuerr f_attr(int *v, int attr, int d)
{
    (void)d;
    *v = attr >= 0 && attr < 128 && fake.attr_set[attr] ? fake.attr[attr] : 4;
    return 0;
}
static pt__cuerr f_meminfo(size_t *free_bytes, size_t *total_bytes)
{
    fake.meminfos++;
    if (fake.meminfo_err)
        return fake.meminfo_err;
    *free_bytes = fake.mem_free;
    *total_bytes = fake.mem_total;
    return 0;
}
static const char *f_errstr(pt__cuerr e)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "fake CUDA error %d", e);
    return buf;
}
static pt__cuerr f_ev_create(pt__cuevent *ev, unsigned flags)
{
    (void)flags;
    if (fake.create_err)
        return fake.create_err;
    *ev = (pt__cuevent)calloc(1, sizeof(fake_event));
    fake.created++;
    return 0;
}
/* The wall clock a paced GPU keeps, in microseconds. */
static inline double fake_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}
/* A wait for a paced GPU returns when the GPU is done, as CUDA's does by
 * default (it spins where the process has a core to spare): it sleeps
 * until shortly before then (a benchmark sets its timer slack low) and
 * spins the rest, so that a sleep's late wake-up (a VM's can be
 * hundreds of microseconds) does not leave the GPU idle. */
#define FAKE_SPIN_US 200.0
static inline void fake_wait_until(double us)
{
    double left;
    if (fake.pace_us > 0 && fake.on_wait)
        fake.on_wait(us);
    while (fake.pace_us > 0 && (left = us - fake_wall_us()) > FAKE_SPIN_US) {
        struct timespec ts = { 0, (long)((left - FAKE_SPIN_US) * 1e3) };
        nanosleep(&ts, NULL);
    }
    while (fake.pace_us > 0 && us > fake_wall_us()) {
    }
}
static pt__cuerr f_ev_record(pt__cuevent ev, pt_stream s)
{
    (void)s;
    if (fake.record_err) {
        if (fake.records_before_err <= 0)
            return fake.record_err;
        fake.records_before_err--;
    }
    ((fake_event *)(void *)ev)->ms = fake.now_ms;
    ((fake_event *)(void *)ev)->due_us = s == FAKE_MADE_STREAM && fake.side_waited
                                             ? fake.side_due_us : fake.busy_until_us;
    fake.records++;
    return 0;
}
static pt__cuerr f_ev_query(pt__cuevent ev)
{
    fake.queries++;
    if (fake.pace_us > 0 && fake_wall_us() < ((fake_event *)(void *)ev)->due_us)
        return PT__CU_NOT_READY;
    return fake.not_ready ? PT__CU_NOT_READY : 0;
}
static pt__cuerr f_ev_sync(pt__cuevent ev)
{
    fake.syncs++;
    fake_wait_until(((fake_event *)(void *)ev)->due_us);
    if (fake.nsynced < 64)
        fake.synced_ms[fake.nsynced++] = ((fake_event *)(void *)ev)->ms;
    return fake.sync_err;
}
static pt__cuerr f_stream_wait(pt_stream s, pt__cuevent ev, unsigned flags)
{
    (void)flags;
    fake.waits++;
    fake.waited_stream = s;
    fake.waited_ev = ev;
    if (s == FAKE_MADE_STREAM) {
        fake.side_due_us = ((fake_event *)(void *)ev)->due_us;
        fake.side_waited = 1;
    }
    return 0;
}
static pt__cuerr f_graph_launch(void *exec, pt_stream s)
{
    (void)s;
    fake.graph_launches++;
    fake.graph_exec = exec;
    if (fake.pace_us > 0) {
        double now = fake_wall_us();
        fake.busy_until_us = (fake.busy_until_us > now ? fake.busy_until_us : now) + fake.pace_us;
    }
    if (fake.graph_replay)
        fake.graph_replay(exec);
    for (long long i = 0; i < fake.copy_nodes && i < 8; i++, fake.graph_copies++)
        memcpy(fake.copy[i].dst, fake.copy[i].src, fake.copy[i].bytes);
    return 0;
}
static void fake_node(void **node, void *const *deps, size_t n)
{
    *node = (void *)(uintptr_t)++fake.graph_nodes;
    fake.ndeps = n;
    for (size_t i = 0; i < n && i < 4; i++)
        fake.deps[i] = deps[i];
}
static pt__cuerr f_graph_memset(void **node, void *graph, void *const *deps, size_t n,
                                const pt__cu_memset *p)
{
    (void)graph;
    fake.memset_params[fake.memset_nodes++ % 2] = *p;
    fake_node(node, deps, n);
    return 0;
}
static pt__cuerr f_graph_kernel(void **node, void *graph, void *const *deps, size_t n,
                                const void *params)
{
    (void)graph;
    fake.kernel_nodes++;
    fake.kernel_params = params;
    fake_node(node, deps, n);
    return 0;
}
static pt__cuerr f_capture_info(pt_stream s, int *status, unsigned long long *id, void **graph,
                                void *const **deps, const void **edges, size_t *n)
{
    fake.capture_infos++;
    *status = fake.capturing && s == fake.capturing ? 1 : 0;
    if (id)
        *id = 1;
    if (graph)
        *graph = (void *)(uintptr_t)0x6c;
    fake.capture_dep = (void *)(uintptr_t)++fake.graph_nodes;
    if (deps)
        *deps = &fake.capture_dep;
    if (edges)
        *edges = NULL;
    if (n)
        *n = 1;
    return 0;
}
static pt__cuerr f_graph_copy(void **node, void *graph, void *const *deps, size_t n, void *dst,
                              const void *src, size_t bytes, int kind)
{
    (void)graph;
    if (fake.copy_err)
        return fake.copy_err;
    if (kind != PT__CU_MEMCPY_D2H || fake.copy_nodes == 8)
        return PT__CU_INVALID_VALUE;
    *node = (void *)(uintptr_t)++fake.graph_nodes; /* deps and ndeps stay the kernel's */
    fake.copy[fake.copy_nodes].node = *node;
    fake.copy[fake.copy_nodes].dep = n ? deps[0] : NULL;
    fake.copy[fake.copy_nodes].dst = dst;
    fake.copy[fake.copy_nodes].src = src;
    fake.copy[fake.copy_nodes++].bytes = bytes;
    return 0;
}
static pt__cuerr f_graph_aim(void *exec, void *node, void *dst, const void *src, size_t bytes,
                             int kind)
{
    (void)exec;
    fake.aims++;
    if (fake.aim_err)
        return fake.aim_err;
    for (long long i = 0; i < fake.copy_nodes; i++) {
        /* A real runtime refuses another source's memory, or size. */
        if (fake.copy[i].node == node && fake.copy[i].src == src &&
            fake.copy[i].bytes == bytes && kind == PT__CU_MEMCPY_D2H) {
            fake.copy[i].dst = dst;
            return 0;
        }
    }
    return PT__CU_INVALID_VALUE;
}
static pt__cuerr f_kernel_params(void *node, pt__cu_kernel_node *p)
{
    (void)node;
    if (!fake.launched.func)
        return fake.last_error = PT__CU_INVALID_VALUE;
    memset(p, 0, sizeof *p);
    p->func = (void *)(uintptr_t)fake.launched.func;
    p->args = fake.launched.args;
    return 0;
}
static pt__cuerr f_param_info(const void *func, size_t i, size_t *offset, size_t *size)
{
    const int odd = fake.odd_func && func == fake.odd_func;
    const size_t *sizes = odd ? fake.odd_size : fake.param_size;
    if (i >= (size_t)(odd ? fake.odd_nparams : fake.nparams)) {
        fake.api_errors++;
        return fake.last_error = PT__CU_INVALID_VALUE;
    }
    *offset = 0;
    for (size_t k = 0; k < i; k++)
        *offset += sizes[k];
    *size = sizes[i];
    return 0;
}
static pt__cuerr f_kernel_aim(void *exec, void *node, const pt__cu_kernel_node *p)
{
    int k = 0;
    (void)exec;
    fake.kernel_aims++;
    if (fake.kaim_err)
        return fake.last_error = fake.kaim_err;
    while (k < fake.nkaim && fake.kaim[k].node != node)
        k++;
    if (k == 8)
        return fake.last_error = PT__CU_INVALID_VALUE;
    fake.nkaim += k == fake.nkaim;
    fake.kaim[k].node = node;
    fake.kaim[k].data = ((const pt_dev_buf *)p->args[fake.nparams - 1])->data;
    return 0;
}
/* Where node's kernel writes its records in the next replay: its last
 * argument as last given, or `as_captured`. */
static inline long long *fake_kernel_data(const void *node, long long *as_captured)
{
    for (int k = 0; k < fake.nkaim; k++)
        if (fake.kaim[k].node == node)
            return fake.kaim[k].data;
    return as_captured;
}
static pt__cuerr f_peek_error(void)
{
    return fake.last_error;
}
static pt__cuerr f_get_error(void)
{
    pt__cuerr e = fake.last_error;
    fake.last_error = 0;
    fake.api_errors += e != 0;
    return e;
}
static pt__cuerr f_is_capturing(pt_stream s, int *status)
{
    fake.capture_asks++;
    *status = fake.capturing && s == fake.capturing ? 1 : 0;
    return 0;
}
static pt__cuerr f_ev_elapsed(float *ms, pt__cuevent a, pt__cuevent b)
{
    fake.elapsed++;
    *ms = (float)(((fake_event *)(void *)b)->ms - ((fake_event *)(void *)a)->ms);
    return 0;
}
static pt__cuerr f_ev_destroy(pt__cuevent ev)
{
    free(ev);
    fake.destroyed++;
    return 0;
}
static pt__cuerr f_malloc(void **p, size_t n)
{
    if (fake.malloc_err)
        return fake.malloc_err;
    *p = calloc(1, n);
    fake.mallocs++;
    return *p ? 0 : PT__CU_MEMORY_ALLOCATION;
}
static pt__cuerr f_free(void *p)
{
    free(p);
    fake.frees++;
    return 0;
}
static pt__cuerr f_mallochost(void **p, size_t n)
{
    fake.mallochosts++;
    if (fake.mallochost_err)
        return fake.mallochost_err;
    *p = malloc(n);
    return *p ? 0 : PT__CU_MEMORY_ALLOCATION;
}
static pt__cuerr f_freehost(void *p)
{
    free(p);
    return 0;
}
static pt__cuerr f_memset(void *p, int v, size_t n, pt_stream s)
{
    (void)s;
    if (fake.memset_err)
        return fake.memset_err;
    memset(p, v, n);
    fake.memsets++;
    return 0;
}
/* n bytes at d out of the CPU's caches, each line written back and
 * dropped (fake.cold_copies); the time it takes into fake.flushed_us. */
static inline void fake_uncache(const void *d, size_t n)
{
#if defined(__x86_64__)
    double t0 = fake_wall_us();
    for (uintptr_t a = (uintptr_t)d & ~(uintptr_t)63; a < (uintptr_t)d + n; a += 64)
        __builtin_ia32_clflush((const void *)a);
    __builtin_ia32_mfence();
    fake.flushed_us += fake_wall_us() - t0;
#else
    (void)d;
    (void)n;
#endif
}
static pt__cuerr f_memcpy(void *d, const void *src, size_t n, int kind, pt_stream s)
{
    (void)kind;
    if (fake.memcpy_err)
        return fake.memcpy_err;
    memcpy(d, src, n);
    if (fake.cold_copies)
        fake_uncache(d, n);
    fake.memcpys++;
    fake.copied_stream = s;
    return 0;
}
static pt__cuerr f_stream_create(pt_stream *s, unsigned flags)
{
    (void)flags;
    if (fake.stream_err && fake.streams_before_err-- <= 0)
        return fake.stream_err;
    *s = FAKE_MADE_STREAM;
    return 0;
}
static pt__cuerr f_stream_sync(pt_stream s)
{
    (void)s;
    fake.stream_syncs++;
    fake_wait_until(fake.busy_until_us);
    return 0;
}
static pt__cuerr f_stream_destroy(pt_stream s)
{
    (void)s;
    return 0;
}
static void **f_register_fatbin(void *wrapper)
{
    const int *w = (const int *)wrapper;
    if (w[0] != 0x466243b1 || w[1] != 1)
        return NULL;
    return (void **)(uintptr_t)(0x100 + ++fake_reg.fatbins);
}
static void f_register_end(void **h)
{
    (void)h;
    fake_reg.ends++;
}
static void f_register_function(void **h, const char *host_fn, char *device_fn,
                                const char *device_name, int limit, void *tid, void *bid,
                                void *bdim, void *gdim, int *wsize)
{
    (void)h, (void)device_name, (void)limit, (void)tid, (void)bid, (void)bdim, (void)gdim,
        (void)wsize;
    fake_reg.functions++;
    if (strcmp(device_fn, "pt_calibrate") == 0)
        fake_reg.calibrate = host_fn;
    else if (strcmp(device_fn, "pt_reduce") == 0)
        fake_reg.reduce = host_fn;
}
/* The kernels, as device/calibrate.cu and device/reduce.cu define them. */
static pt__cuerr f_launch(pt__cukernel func, pt__dim3 grid, pt__dim3 block, void **args,
                          size_t shared, pt_stream s)
{
    (void)grid, (void)block, (void)shared, (void)s;
    if (fake.launch_err)
        return fake.launch_err;
    if (fake.library_err && (func == fake_reg.calibrate || func == fake_reg.reduce))
        return fake.library_err;
    fake.launches++;
    if (func && func == fake_reg.calibrate) {
        long long *out = (long long *)*(void **)args[0];
        out[PT__CAL_TICK] = fake.cal_tick;
        out[PT__CAL_CYCLES] = fake.cal_cycles;
        out[PT__CAL_NS] = fake.cal_ns;
        out[PT__CAL_SMID] = fake.cal_smid;
        out[PT__CAL_MARK_CYCLES] = fake.cal_mark_cycles;
        out[PT__CAL_MARKS] = fake.cal_marks;
        return 0;
    }
    if (func && func == fake_reg.reduce) {
        const long long *buf = *(const long long **)args[0];
        pt__rword *res = (pt__rword *)*(void **)args[1];
        int nslots = *(int *)args[2], nphases = *(int *)args[3], cap = *(int *)args[4];
        int nsm = *(int *)args[5];
        double tick = *(double *)args[6], rate = *(double *)args[7], mark = *(double *)args[8];
        long long sw = PT_DEV_SLOT_WORDS(nphases, cap);
        fake.reduce_launches++;
        for (int i = 0; i < PT_DEV_HDR; i++)
            res[i].i = buf[i];
        for (int i = 0; i < nslots; i++)
            pt__red_slot(res, buf + PT_DEV_HDR + i * sw, nphases, nsm, tick, rate, mark, cap,
                         pt__count_limit(nslots));
        return 0;
    }
    return 98; /* cudaErrorInvalidDeviceFunction */
}

static const pt__cuda_api fake_api = {
    .unavailable = NULL,
    .GetDeviceCount = f_count,
    .GetDevice = f_device,
    .GetDeviceProperties = f_props,
    .DeviceGetAttribute = f_attr,
    .GetErrorString = f_errstr,
    .EventCreateWithFlags = f_ev_create,
    .EventRecord = f_ev_record,
    .EventQuery = f_ev_query,
    .EventSynchronize = f_ev_sync,
    .EventElapsedTime = f_ev_elapsed,
    .EventDestroy = f_ev_destroy,
    .Malloc = f_malloc,
    .Free = f_free,
    .MallocHost = f_mallochost,
    .FreeHost = f_freehost,
    .MemsetAsync = f_memset,
    .MemcpyAsync = f_memcpy,
    .StreamCreateWithFlags = f_stream_create,
    .StreamSynchronize = f_stream_sync,
    .StreamDestroy = f_stream_destroy,
    .StreamWaitEvent = f_stream_wait,
    .StreamIsCapturing = f_is_capturing,
    .GraphLaunch = f_graph_launch,
    .GraphAddMemsetNode = f_graph_memset,
    .GraphAddKernelNode = f_graph_kernel,
    .StreamGetCaptureInfo = f_capture_info,
    .GraphAddMemcpyNode1D = f_graph_copy,
    .GraphExecMemcpyNodeSetParams1D = f_graph_aim,
    .RegisterFatBinary = f_register_fatbin,
    .RegisterFatBinaryEnd = f_register_end,
    .RegisterFunction = f_register_function,
    .LaunchKernel = f_launch,
    .MemGetInfo = f_meminfo,
};

/* A machine with no CUDA runtime at all. */
static const pt__cuda_api fake_missing_api = {
    .unavailable = "libcudart.so.13: cannot open shared object file (fake)",
};

/* Install a working fake GPU: 2 cycles per ns, a 1 us tick. */
static inline void fake_install(void)
{
    memset(&fake, 0, sizeof fake);
    memset(&fake_reg, 0, sizeof fake_reg);
    fake.device_count = 1;
    fake.records_before_err = -1;
    fake.cal_tick = 1000;
    fake.cal_cycles = 4000000;
    fake.cal_ns = 2000000;
    fake.cal_smid = 3;
    pt__cuda_set_shim(&fake_api);
}

/* The same, with a runtime whose graphs' kernel nodes take other
 * arguments (CUDA 12.4 on): kernels of nparams parameters of the sizes
 * given, the last a pt_dev_buf. */
static inline void fake_install_ring(int nparams, const size_t *sizes)
{
    static pt__cuda_api ring_api;

    fake_install();
    ring_api = fake_api;
    ring_api.GraphKernelNodeGetParams = f_kernel_params;
    ring_api.GraphExecKernelNodeSetParams = f_kernel_aim;
    ring_api.FuncGetParamInfo = f_param_info;
    ring_api.PeekAtLastError = f_peek_error;
    ring_api.GetLastError = f_get_error;
    fake.nparams = nparams;
    for (int i = 0; i < nparams && i < 8; i++)
        fake.param_size[i] = sizes[i];
    pt__cuda_set_shim(&ring_api);
}

static inline void fake_uninstall(void)
{
    pt__cuda_set_shim(NULL);
}

#endif
