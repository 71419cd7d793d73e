/* Bringing a launch's records back for its fold (fold.c): copied into
 * a host copy of the buffer's behind the launch, or, for a large grid,
 * summarized on the device by device/reduce.cu first and only the
 * summary copied. Nothing waits for the GPU here: the fold waits for the
 * copy's event in the queue. */
#include "gpu/fold_copy.h"

#include "core/errors.h"
#include "gpu/calibrate.h"
#include "gpu/gpu.h"

#include "pt_fold_math.h"

/* Summarizes a large grid on the device and copies the summary back.
 * Returns 0 when it is under way, else nonzero and the caller copies
 * every record instead (a failure of the kernel's launch is counted). */
static int reduce_on_device(pt_timing *t, pt_dev_records *b, pt__fold_src *src,
                            pt__stage **stage, pt_stream s, const char *title)
{
    const pt__cuda_api *cu = b->cu;
    int nsm = PT__RED_NSM_DEVICE, nslots = b->nslots, nphases = b->nphases, cap = b->trace_cap;
    size_t bytes = (size_t)PT__R_WORDS(nphases, nsm) * sizeof(pt__rword);
    double tick, rate, mark;
    const char *what;
    pt__stage *st;
    pt__cukernel k;
    pt__calib cal;
    pt__cuerr e;
    char why[192];
    void *args[9];
    unsigned grid;

    pt__calib_get(cu, b->device, &cal);
    if (!cal.ok)
        return 1; /* the fold on the host pools the launch's rate */
    k = pt__reduce_kernel(cu, why, sizeof why);
    if (!k) {
        if (pt__gpu_once(t, PT__ONCE_REDUCE))
            pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): no device reduction (%s); every record "
                                  "is copied back", title, why);
        return 1;
    }
    if (!b->red_dev) {
        e = cu->Malloc(&b->red_dev, bytes);
        if (e) {
            b->red_dev = NULL;
            pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): cudaMalloc for the reduction: %s; every "
                                  "record is copied back", title, pt__cuda_errstr(cu, e));
            return 1;
        }
    }
    if (pt__stage_get(t, b, bytes, &st))
        return 1;
    tick = cal.tick_ns;
    rate = 1.0 / cal.cycles_per_ns;
    mark = cal.mark_cycles;
    args[0] = &b->data;
    args[1] = &b->red_dev;
    args[2] = &nslots;
    args[3] = &nphases;
    args[4] = &cap;
    args[5] = &nsm;
    args[6] = &tick;
    args[7] = &rate;
    args[8] = &mark;
    grid = (unsigned)((nslots + 255) / 256);
    if (grid > 4096)
        grid = 4096;
    what = "cudaMemsetAsync";
    e = cu->MemsetAsync(b->red_dev, 0, bytes, s);
    if (!e) {
        what = "cudaLaunchKernel(pt_reduce)";
        e = cu->LaunchKernel(k, (pt__dim3){ grid, 1, 1 }, (pt__dim3){ 256, 1, 1 },
                             args, 0, s);
    }
    if (!e) {
        what = "cudaMemcpyAsync";
        e = cu->MemcpyAsync(st->host, b->red_dev, bytes, PT__CU_MEMCPY_D2H, s);
    }
    if (!e) {
        what = "cudaEventRecord";
        e = cu->EventRecord(st->ev, s);
        st->copying = !e;
    }
    if (e) {
        st->busy = 0;
        pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): the device reduction: %s: %s; every record "
                              "is copied back", title, what, pt__cuda_errstr(cu, e));
        return 1;
    }
    b->read_ev = st->ev;
    b->read_stream = s;
    b->read_in_graph = 0;
    src->data = st->host;
    *stage = st;
    src->reduced = 1;
    src->nsm = nsm;
    src->calibrated = 1;
    src->tick_ns = tick;
    src->ns_per_cycle = rate;
    src->mark_cycles = mark;
    return 0;
}

int pt__fold_copy_back(pt_timing *t, pt_dev_records *b, pt__fold_src *src, pt__stage **stage,
                       pt_stream s, const char *title)
{
    const pt__cuda_api *cu = b->cu;
    size_t bytes = (size_t)b->words * sizeof(long long);
    pt__stage *st;
    pt__cuerr e;
    int rc;

    /* Stale records are read on the host, which can tell their DONE
     * counts apart (fold_apply.c), and so are a graph's replays that reset
     * nothing (replay_counts); the device reduction cannot. */
    if (b->nslots >= pt__reduce_min_slots && !src->stale && !src->delta &&
        reduce_on_device(t, b, src, stage, s, title) == 0)
        return 0;
    if ((rc = pt__stage_get(t, b, bytes, &st)) != 0)
        return rc;
    e = cu->MemcpyAsync(st->host, b->data, bytes, PT__CU_MEMCPY_D2H, s);
    if (e) {
        st->busy = 0;
        return pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): cudaMemcpyAsync: %s; nothing folded",
                        title, pt__cuda_errstr(cu, e));
    }
    st->copy_no = ++pt__gpu_of(t)->copies;
    e = cu->EventRecord(st->ev, s);
    if (!e) {
        b->read_ev = st->ev;
        b->read_stream = s;
        b->read_in_graph = 0;
        st->copying = 1;
    }
    if (e) {
        /* Without an event to wait on later, wait for the copy now. */
        pt__cuerr e2 = cu->StreamSynchronize(s);
        if (e2) {
            st->busy = 0;
            return pt__fail(t, PT_ECUDA, "pt_dev_fold(\"%s\"): cudaEventRecord: %s; "
                                         "cudaStreamSynchronize: %s; nothing folded",
                            title, pt__cuda_errstr(cu, e), pt__cuda_errstr(cu, e2));
        }
    }
    src->data = st->host;
    *stage = st;
    return 0;
}
