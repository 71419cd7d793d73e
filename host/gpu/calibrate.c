/* Cycles into time: how many clock64 cycles a globaltimer nanosecond
 * holds, and how coarsely globaltimer ticks, measured once per device per
 * process.
 *
 * On a GPU the measurement is ptkit's kernel device/calibrate.cu, embedded
 * in the library as a fatbin, registered with the runtime of the process
 * as nvcc's generated code registers a program's kernels (so CUDA 11, 12
 * and 13 runtimes alike take it) and launched with cudaLaunchKernel.
 * For host mode (pt_dev.h compiled for the CPU), "clock64" is the TSC on
 * x86 and nanoseconds elsewhere, and "globaltimer" is CLOCK_MONOTONIC; the
 * host calibration measures those. The fold uses the figures for blocks
 * too short to carry their own rate; never a nominal clock rate.
 *
 * Both also measure what one PT_DEV_MARK costs there, in cycles: marks
 * back to back charge each other exactly that (device/calibrate.cu says
 * how on a GPU; host mode runs pt_dev.h's own macros the same way). The
 * fold takes hits x that out of each phase. */
#include "gpu/calibrate.h"

#include "pt_calibrate.h"

#include "core/clock.h"

#include <pt/pt_dev.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#  include <x86intrin.h>
#  define PT__HOST_TSC 1
#else
#  define PT__HOST_TSC 0
#endif

#define PT__CALIB_MAXDEV 64
/* What the calibration kernel is allowed: globaltimer reads to find the
 * tick, and the longest timed spin. 2 ms against a tick of at most 1 us
 * bounds the rate's error near 1e-3 even before the kernel aligns both
 * ends on tick edges, which makes it far smaller; a finer tick takes a
 * shorter spin (device/calibrate.cu). */
#define PT__CALIB_READS 20000
#define PT__CALIB_SPIN_NS 2000000LL

typedef struct calib_entry {
    int done;                 /* measured (or failed) already */
    int forced;               /* set by pt__calib_set() */
    pt__calib c;
} calib_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static calib_entry host_entry;
static calib_entry dev_entry[PT__CALIB_MAXDEV];
/* nvcc's wrapper of a fatbin, as __cudaRegisterFatBinary takes it. */
typedef struct fatbin_wrapper {
    int magic;
    int version;
    const void *data;
    void *unused;
} fatbin_wrapper;
#define PT__FATBIN_MAGIC 0x466243b1

/* ptkit's kernels: each registered once per runtime, under the address of
 * its `host` byte (what cudaLaunchKernel is given). */
typedef struct pt_kernel {
    const unsigned long long *fatbin;
    const size_t *size;
    const char *name;
    char host;
    int tried;                /* registered, or found impossible */
    pt__cukernel k;           /* &host once registered */
    char why[192];
    fatbin_wrapper wrap;      /* the runtime keeps its address: static, as nvcc's */
} pt_kernel;
static pt_kernel kernel_calibrate = { .fatbin = pt__fatbin_calibrate,
                                      .size = &pt__fatbin_calibrate_size,
                                      .name = "pt_calibrate" };
static pt_kernel kernel_reduce = { .fatbin = pt__fatbin_reduce, .size = &pt__fatbin_reduce_size,
                                   .name = "pt_reduce" };
static unsigned made_in;      /* pt__cuda_generation() of what is above */

/* ---- host mode --------------------------------------------------- */

/* The smallest step CLOCK_MONOTONIC is seen to take. On Linux this is the
 * cost of a read (tens of ns) rather than the nominal 1 ns resolution,
 * which is the honest figure: no two host-mode timestamps are closer. */
static double host_tick_ns(void)
{
    int64_t prev = pt__mono_ns(), best = INT64_MAX;
    for (int i = 0; i < PT__CALIB_READS; i++) {
        int64_t now = pt__mono_ns();
        if (now != prev) {
            if (now - prev < best)
                best = now - prev;
            prev = now;
        }
    }
    return best == INT64_MAX ? 1.0 : (double)best;
}

/* TSC ticks per ns. pt_dev.h reads the TSC on x86 whatever the library's
 * own clock choice (PT_NO_TSC, an invariant TSC or not), so when the
 * library does not calibrate it, measure it here. */
static double host_cycles_per_ns(void)
{
#if PT__HOST_TSC
    double ns_per_tick = pt__tsc_ns_per_tick();
    uint64_t c0, c1;
    int64_t n0, n1;

    if (ns_per_tick > 0)
        return 1.0 / ns_per_tick;
    n0 = pt__mono_ns();
    c0 = __rdtsc();
    do
        n1 = pt__mono_ns();
    while (n1 - n0 < PT__CALIB_SPIN_NS);
    c1 = __rdtsc();
    return c1 > c0 ? (double)(c1 - c0) / (double)(n1 - n0) : 1.0;
#else
    /* Elsewhere host mode's "clock64" counts nanoseconds. */
    return 1.0;
#endif
}

/* Host mode's mark: pt_dev.h's macros compiled here as a program's
 * host-mode code compiles them, marks back to back over four phases in
 * turn; the least of a few rounds, so a preemption does not count. */
#define HOST_MARK_TURNS 256
static double host_mark_cycles(void)
{
    _Alignas(16) long long rec[PT_DEV_BUF_WORDS(1, PT__CAL_MARK_PHASES, 0)];
    pt_dev_buf b = { rec, 1, PT__CAL_MARK_PHASES, 0, PT_DEV_MODE_AGGREGATE };
    double best = 0;

    for (int round = 0; round < 5; round++) {
        long long cycles, hits;
        memset(rec, 0, sizeof rec);
        {
            PT_DEV_BEGIN_AT(b, 0);
            for (int turn = 0; turn < HOST_MARK_TURNS; turn++)
                PT__CAL_MARKS();
            PT_DEV_END(b);
        }
        pt__cal_marks_read(rec, &cycles, &hits);
        if (hits > 0 && (best == 0 || (double)cycles / (double)hits < best))
            best = (double)cycles / (double)hits;
    }
    return best;
}

static void host_calibrate(pt__calib *c)
{
    memset(c, 0, sizeof *c);
    c->cycles_per_ns = host_cycles_per_ns();
    c->tick_ns = host_tick_ns();
    c->mark_cycles = host_mark_cycles();
    c->smid = -1;
    c->ok = 1;
    snprintf(c->name, sizeof c->name, "host");
}

/* ---- on a device ------------------------------------------------- */

/* The kernel, registered with the runtime on first use; NULL with why. A
 * registration that the runtime refuses shows at the first launch, which
 * says so. Under lock. */
static pt__cukernel kernel_get(const pt__cuda_api *cu, pt_kernel *kn, char *why, size_t n)
{
    if (!kn->tried) {
        kn->tried = 1;
        if (*kn->size == 0) {
            snprintf(kn->why, sizeof kn->why,
                     "libptkit was built without CUDA (CUDA=0): no device kernels");
        } else if (!cu->RegisterFatBinary || !cu->RegisterFunction || !cu->LaunchKernel) {
            snprintf(kn->why, sizeof kn->why, "the CUDA runtime lacks %s",
                     !cu->LaunchKernel ? "cudaLaunchKernel" : "__cudaRegisterFatBinary");
        } else {
            /* The runtime keeps the wrapper's address: one per kernel, in
             * static storage, for the life of the process. */
            void **h;
            kn->wrap = (fatbin_wrapper){ PT__FATBIN_MAGIC, 1, kn->fatbin, NULL };
            h = cu->RegisterFatBinary(&kn->wrap);
            if (!h) {
                snprintf(kn->why, sizeof kn->why, "__cudaRegisterFatBinary(%s) failed", kn->name);
            } else {
                cu->RegisterFunction(h, &kn->host, (char *)kn->name, kn->name, -1, NULL, NULL,
                                     NULL, NULL, NULL);
                if (cu->RegisterFatBinaryEnd)
                    cu->RegisterFatBinaryEnd(h);
                kn->k = &kn->host;
            }
        }
    }
    if (!kn->k && why && n)
        snprintf(why, n, "%s", kn->why);
    return kn->k;
}

static void device_name(const pt__cuda_api *cu, int device, pt__calib *c)
{
    char *prop = calloc(1, PT__CU_PROP_BYTES);
    snprintf(c->name, sizeof c->name, "CUDA device %d", device);
    if (prop && cu->GetDeviceProperties(prop, device) == 0 && prop[0]) {
        prop[sizeof c->name - 1] = '\0';
        snprintf(c->name, sizeof c->name, "%s", prop);
    }
    free(prop);
}

/* Runs device/calibrate.cu on the current device (which is `device`) on a
 * stream of its own, and waits for it: once per device per process. */
static void device_calibrate(const pt__cuda_api *cu, int device, pt__calib *c)
{
    pt__cukernel k;
    pt_stream s = NULL;
    void *d = NULL;
    /* PT__CAL_OUT words come back; the marks' record stays on the device. */
    long long out[PT__CAL_OUT] = { 0 }, spin = PT__CALIB_SPIN_NS;
    int reads = PT__CALIB_READS;
    void *args[3];
    pt__cuerr e;
    const char *step = "";

    c->ok = 0;
    c->smid = -1;
    k = kernel_get(cu, &kernel_calibrate, c->why, sizeof c->why);
    if (!k)
        return;
    args[0] = &d;
    args[1] = &reads;
    args[2] = &spin;
    if ((e = cu->Malloc(&d, (size_t)PT__CAL_WORDS * sizeof(long long))) != 0) {
        d = NULL;
        step = "cudaMalloc";
    } else if ((e = cu->StreamCreateWithFlags(&s, PT__CU_STREAM_NON_BLOCKING)) != 0) {
        s = NULL;
        step = "cudaStreamCreateWithFlags";
    } else if ((e = cu->LaunchKernel(k, (pt__dim3){ 1, 1, 1 },
                                     (pt__dim3){ 1, 1, 1 }, args, 0, s)) != 0) {
        step = "cudaLaunchKernel(pt_calibrate)";
    } else if ((e = cu->MemcpyAsync(out, d, sizeof out, PT__CU_MEMCPY_D2H, s)) != 0) {
        step = "cudaMemcpyAsync";
    } else if ((e = cu->StreamSynchronize(s)) != 0) {
        step = "cudaStreamSynchronize";
    }
    if (d)
        cu->Free(d);
    if (s)
        cu->StreamDestroy(s);
    if (e) {
        snprintf(c->why, sizeof c->why, "calibration of device %d: %s: %s", device, step,
                 pt__cuda_errstr(cu, e));
        return;
    }
    if (out[PT__CAL_TICK] <= 0 || out[PT__CAL_CYCLES] <= 0 || out[PT__CAL_NS] <= 0) {
        snprintf(c->why, sizeof c->why,
                 "calibration kernel gave tick %lld ns, %lld cycles in %lld ns", out[PT__CAL_TICK],
                 out[PT__CAL_CYCLES], out[PT__CAL_NS]);
        return;
    }
    c->tick_ns = (double)out[PT__CAL_TICK];
    c->cycles_per_ns = (double)out[PT__CAL_CYCLES] / (double)out[PT__CAL_NS];
    c->smid = (int)out[PT__CAL_SMID];
    /* No marks counted: the cost stays unknown, and nothing is taken out. */
    c->mark_cycles = out[PT__CAL_MARK_CYCLES] > 0 && out[PT__CAL_MARKS] > 0
                         ? (double)out[PT__CAL_MARK_CYCLES] / (double)out[PT__CAL_MARKS] : 0;
    c->ok = 1;
}

/* Forget every calibration and loaded kernel when the runtime changed
 * (a test's shim came or went): they belong to the runtime they were made
 * with. Kernels loaded from another runtime are not unloaded: that
 * runtime may be gone, and a library handle costs little. Under lock. */
static void follow_runtime(void)
{
    unsigned now = pt__cuda_generation();

    if (now == made_in)
        return;
    made_in = now;
    memset(&host_entry, 0, sizeof host_entry);
    memset(dev_entry, 0, sizeof dev_entry);
    kernel_calibrate.tried = kernel_reduce.tried = 0;
    kernel_calibrate.k = kernel_reduce.k = NULL;
}

void pt__calib_get(const pt__cuda_api *cu, int device, pt__calib *out)
{
    calib_entry *en;

    pthread_mutex_lock(&lock);
    follow_runtime();
    if (device < 0) {
        en = &host_entry;
        if (!en->done)
            host_calibrate(&en->c);
    } else if (device >= PT__CALIB_MAXDEV || !cu || cu->unavailable) {
        memset(out, 0, sizeof *out);
        snprintf(out->name, sizeof out->name, "CUDA device %d", device);
        snprintf(out->why, sizeof out->why, "no calibration for device %d", device);
        pthread_mutex_unlock(&lock);
        return;
    } else {
        en = &dev_entry[device];
        if (!en->done) {
            device_name(cu, device, &en->c);
            if (!en->forced)
                device_calibrate(cu, device, &en->c);
        }
    }
    en->done = 1;
    *out = en->c;
    pthread_mutex_unlock(&lock);
}

void pt__calib_set(int device, double cycles_per_ns, double tick_ns)
{
    calib_entry *en;

    if (device >= PT__CALIB_MAXDEV)
        return;
    pthread_mutex_lock(&lock);
    follow_runtime();
    en = device < 0 ? &host_entry : &dev_entry[device];
    if (cycles_per_ns <= 0) {
        memset(en, 0, sizeof *en);
    } else {
        memset(en, 0, sizeof *en);
        en->forced = 1;
        en->done = device < 0; /* a device still needs its name */
        en->c.ok = 1;
        en->c.cycles_per_ns = cycles_per_ns;
        en->c.tick_ns = tick_ns;
        en->c.smid = -1;
        snprintf(en->c.name, sizeof en->c.name, device < 0 ? "host" : "CUDA device %d", device);
    }
    pthread_mutex_unlock(&lock);
}

void pt__calib_set_mark(int device, double mark_cycles)
{
    if (device >= PT__CALIB_MAXDEV)
        return;
    pthread_mutex_lock(&lock);
    follow_runtime();
    (device < 0 ? &host_entry : &dev_entry[device])->c.mark_cycles = mark_cycles > 0 ? mark_cycles : 0;
    pthread_mutex_unlock(&lock);
}

pt__cukernel pt__reduce_kernel(const pt__cuda_api *cu, char *why, size_t n)
{
    pt__cukernel k;

    pthread_mutex_lock(&lock);
    follow_runtime();
    k = kernel_get(cu, &kernel_reduce, why, n);
    pthread_mutex_unlock(&lock);
    return k;
}
