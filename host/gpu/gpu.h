/* A timing's GPU side (gpu.c): made on the first GPU call, attached to the
 * timing, torn down with it; the runtime it uses and whether it has a
 * device. Not installed. */
#ifndef PT_GPU_GPU_H
#define PT_GPU_GPU_H

#include "gpu/state.h"

/* t's GPU state, created on first use; NULL when memory is short. */
PT__HIDDEN pt__gpu *pt__gpu_get(pt_timing *t);
/* The runtime table t uses. */
PT__HIDDEN const pt__cuda_api *pt__gpu_api(pt_timing *t);
/* 1 when t can use a device: the runtime loads and has a device. Probes
 * once per timing; why not is kept for the first fallback to say. */
PT__HIDDEN int pt__gpu_device(pt_timing *t);
/* 1 when stream s is being captured into a CUDA graph (t has a device
 * and the runtime says so). ptkit then makes no call on s: an event
 * query or a wait on a capturing stream would invalidate the user's
 * capture, and a replay's times and records are not the capture's. */
PT__HIDDEN int pt__gpu_capturing(pt_timing *t, pt_stream s);
/* Stream s found not capturing by the caller's own pt__gpu_capturing():
 * until pt__gpu_uncaptured_end(), pt__gpu_capturing(t, s) says 0 without
 * asking the runtime again, a call the host pays a microsecond or so for
 * (PT_LAUNCH asked four times a launch, pt_graph_launch twice a replay).
 * For the span of one ptkit call, on its own thread. */
PT__HIDDEN void pt__gpu_uncaptured(pt_timing *t, pt_stream s);
PT__HIDDEN void pt__gpu_uncaptured_end(pt_timing *t);
/* pt_start_gpu()/pt_stop_gpu() with no metrics, as `how` says (a graph's
 * replay, graph.c). PT__BY_KERNELS: timed by its kernels' own clocks; no
 * event opens or closes it, its time is the span of the blocks of the
 * folds waiting on it, first BEGIN to last END on %globaltimer (queue.c);
 * with PT__CLOSE an event recorded after it tells when it (and those
 * before it on s) completed; without, a later one on s does, or the queue
 * records one when it must know. PT__HOLD: the occurrence stays
 * unresolved, whatever completed, until its folds are attached and
 * pt__queue_filled() says so (its time by kernels is theirs, and PT_TRACE
 * draws them from their earliest BEGIN); PT_SYNC's wait is then the
 * caller's. */
enum { PT__BY_KERNELS = 1, PT__CLOSE = 2, PT__HOLD = 4 };
PT__HIDDEN int pt__start_gpu_as(pt_timing *t, const char *title, pt_stream s, int how);
PT__HIDDEN int pt__stop_gpu_as(pt_timing *t, const char *title, pt_stream s, int how);
/* Why pt__gpu_device() said no ("" before it was asked). */
PT__HIDDEN const char *pt__gpu_why(const pt_timing *t);
/* Say once per timing, as a note, that GPU buffers were made in host memory. */
PT__HIDDEN void pt__gpu_note_host_fallback(pt_timing *t, const char *why);
/* 1 the first time since the timing's creation or reset that `what`
 * (one of PT__ONCE_*) is asked about: for faults described once. */
enum {
    PT__ONCE_UNCALIBRATED = 1u << 0, /* a fold without the device's calibration */
    PT__ONCE_REDUCE = 1u << 1,       /* a fold without the device reduction */
    PT__ONCE_EVENTS = 1u << 2,       /* GPU sections timed by the CPU clock */
    PT__ONCE_BUFFERS = 1u << 3,      /* record buffers made in host memory */
    PT__ONCE_NO_KERNEL = 1u << 4     /* a fold of such a buffer that no kernel wrote */
};
PT__HIDDEN int pt__gpu_once(pt_timing *t, unsigned what);
/* d is told (d->detach) when t is destroyed. 0, or PT_ENOMEM when t has no
 * GPU state and none can be made (d is then never told). */
PT__HIDDEN int pt__gpu_link(pt_timing *t, pt__gpu_dep *d);
PT__HIDDEN void pt__gpu_unlink(pt_timing *t, pt__gpu_dep *d);

#endif
