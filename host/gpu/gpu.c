/* A timing's GPU side: made on the first GPU call and attached to the
 * timing (core/timing.h), which calls it back to settle pending work
 * before figures are read, to find the device's peaks, on pt_reset() and
 * on pt_destroy().
 *
 * Without PT_GPU_EVENTS, or without a runtime or a device, GPU sections
 * are timed by the CPU clock like pt_start()/pt_stop(), still marked as
 * GPU sections, and the timing records that it fell back (the report
 * says so). Each fallback is described once per timing. */
#include "gpu/gpu.h"

#include "core/errors.h"
#include "core/roofline.h"
#include "gpu/event_pool.h"
#include "gpu/fold_worker.h"
#include "gpu/queue.h"

#include <stdio.h>
#include <stdlib.h>

static const pt__ext_ops ops;

pt__gpu *pt__gpu_get(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);

    if (!g) {
        /* The runtime is loaded when a GPU call needs it (pt__gpu_api,
         * pt__gpu_device), not for host-mode buffers. */
        g = calloc(1, sizeof *g);
        if (!g)
            return NULL;
        g->free_head = -1;
        pt__ext_attach(t, PT__EXT_GPU, &ops, g);
    }
    return g;
}

const pt__cuda_api *pt__gpu_api(pt_timing *t)
{
    pt__gpu *g = pt__gpu_get(t);
    if (g && !g->cu)
        g->cu = pt__cuda();
    return g ? g->cu : pt__cuda();
}

int pt__gpu_capturing(pt_timing *t, pt_stream s)
{
    const pt__cuda_api *cu;
    pt__gpu *g = pt__gpu_of(t);
    int status = 0;

    if (g && g->uncaptured_set && g->uncaptured == s)
        return 0;
    if (!pt__gpu_device(t))
        return 0;
    cu = pt__gpu_api(t);
    return cu && cu->StreamIsCapturing && cu->StreamIsCapturing(s, &status) == 0 && status != 0;
}

void pt__gpu_uncaptured(pt_timing *t, pt_stream s)
{
    pt__gpu *g = pt__gpu_of(t);
    if (g) {
        g->uncaptured = s;
        g->uncaptured_set = 1;
    }
}

void pt__gpu_uncaptured_end(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);
    if (g)
        g->uncaptured_set = 0;
}

int pt__gpu_device(pt_timing *t)
{
    pt__gpu *g = pt__gpu_get(t);
    const pt__cuda_api *cu;
    int n = 0;
    pt__cuerr e;

    if (!g)
        return 0;
    if (g->dev_state)
        return g->dev_state > 0;
    cu = pt__gpu_api(t);
    g->dev_state = -1;
    if (cu->unavailable) {
        snprintf(g->dev_why, sizeof g->dev_why, "no CUDA runtime: %s", cu->unavailable);
    } else if ((e = cu->GetDeviceCount(&n)) != 0) {
        snprintf(g->dev_why, sizeof g->dev_why, "cudaGetDeviceCount: %s",
                 pt__cuda_errstr(cu, e));
    } else if (n <= 0) {
        snprintf(g->dev_why, sizeof g->dev_why, "no CUDA device");
    } else {
        g->dev_state = 1;
    }
    return g->dev_state > 0;
}

const char *pt__gpu_why(const pt_timing *t)
{
    const pt__gpu *g = pt__gpu_of(t);
    return g ? g->dev_why : "";
}

void pt__gpu_note_host_fallback(pt_timing *t, const char *why)
{
    if (pt__gpu_once(t, PT__ONCE_BUFFERS))
        pt__note(t, "%s: device record buffers are made in host memory",
                 why ? why : pt__gpu_why(t));
}

int pt__gpu_once(pt_timing *t, unsigned what)
{
    pt__gpu *g = pt__gpu_get(t);
    if (!g || (g->said & what))
        return 0;
    g->said |= what;
    return 1;
}

int pt__gpu_link(pt_timing *t, pt__gpu_dep *d)
{
    pt__gpu *g = pt__gpu_get(t);
    if (!g)
        return PT_ENOMEM;
    d->next = g->deps;
    g->deps = d;
    return 0;
}

void pt__gpu_unlink(pt_timing *t, pt__gpu_dep *d)
{
    pt__gpu *g = t ? pt__gpu_of(t) : NULL;

    if (!g)
        return;
    for (pt__gpu_dep **p = &g->deps; *p; p = &(*p)->next) {
        if (*p == d) {
            *p = d->next;
            break;
        }
    }
    d->next = NULL;
}

/* ---- what the timing calls back ---------------------------------- */

static void settle(pt_timing *t)
{
    pt__queue_resolve(t);
}

/* The device's peaks, asked once per timing, and only when the timing
 * already used a GPU: a CPU run never loads the CUDA runtime for this.
 * Theoretical and FP32 (core/roofline.c says how). */
static void peaks(pt_timing *t)
{
    const pt__cuda_api *cu;
    int dev = 0, clk = 0, sms = 0, mclk = 0, bus = 0, major = 0, minor = 0, lanes;

    t->peak_src = PT__PEAKS_TRIED;
    if (!pt__gpu_device(t))
        return;
    cu = pt__gpu_api(t);
    if (cu->unavailable || cu->GetDevice(&dev) ||
        cu->DeviceGetAttribute(&clk, PT__CU_ATTR_CLOCK_RATE, dev) ||
        cu->DeviceGetAttribute(&sms, PT__CU_ATTR_MULTIPROCESSORS, dev) ||
        cu->DeviceGetAttribute(&mclk, PT__CU_ATTR_MEMORY_CLOCK_RATE, dev) ||
        cu->DeviceGetAttribute(&bus, PT__CU_ATTR_BUS_WIDTH, dev) ||
        cu->DeviceGetAttribute(&major, PT__CU_ATTR_CC_MAJOR, dev) ||
        cu->DeviceGetAttribute(&minor, PT__CU_ATTR_CC_MINOR, dev))
        return;
    lanes = pt__fp32_lanes(major, minor);
    if (mclk <= 0 || bus <= 0 || clk <= 0 || sms <= 0 || lanes == 0)
        return;
    t->peak_bw = (double)mclk * 1e3 * ((double)bus / 8.0) * 2.0;
    t->peak_flops = (double)sms * (double)clk * 1e3 * (double)lanes * 2.0;
    t->peak_src = PT__PEAKS_DEVICE;
}

static void reset(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);

    pt__queue_reset(g);
    /* Notes and errors are forgotten with the rest, so the fallbacks are
     * said again when they happen again. The device's probe is kept: it
     * was made before any section (at pt_create), and probing again
     * would put a driver call inside the next GPU section. */
    g->said = 0;
}

static void destroy(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);

    reset(t);
    pt__worker_free(g->worker); /* after the folds it held, which reset waited for */
    g->worker = NULL;
    pt__event_pool_free(g);
    if (g->ref)
        pt__event_destroy(g, g->ref);
    /* What was made here outlives the timing; it stops reporting to it. */
    for (pt__gpu_dep *d = g->deps, *n; d; d = n) {
        n = d->next;
        d->next = NULL;
        d->detach(d, t);
    }
    pt__queue_free(g);
    if (g->captured_free)
        g->captured_free(g);
    free(g);
    pt__ext_attach(t, PT__EXT_GPU, NULL, NULL);
}

static const pt__ext_ops ops = {
    .settle = settle, .peaks = peaks, .reset = reset, .destroy = destroy,
};

/* A timing that will time GPU sections with events loads the runtime and
 * probes the device as it is made, before any section's clock is read:
 * the first load (about a millisecond) and the driver's start would
 * otherwise lie inside the first GPU section and every section open
 * around it. */
static void on_create(pt_timing *t)
{
    if (t->flags & PT_GPU_EVENTS)
        pt__gpu_device(t);
}

__attribute__((constructor)) static void gpu_layer_init(void)
{
    pt__ext_on_create(PT__EXT_GPU, on_create);
}
