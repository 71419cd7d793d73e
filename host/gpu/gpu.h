/* The GPU side of the library, shared by host/events.c (event pool and the
 * queue of pending work), host/devbuf.c (record buffers), host/fold.c
 * (records into sections) and host/calibrate.c (cycles into time).
 * Not installed. */
#ifndef PT_GPU_H
#define PT_GPU_H

#include "gpu/cuda.h"
#include "core/timing.h"

#include <stddef.h>

/* ---- record buffers (devbuf.c) ----------------------------------- */

/* A buffer keeps a few host copies for folds in flight, so launches can
 * be folded one after another without waiting for the previous copy. */
#define PT__STAGE_MAX 4

/* A host copy of a buffer's records (or of a reduction's result), pinned
 * where the runtime allows so the copy back stays asynchronous. `ev`
 * marks the end of the latest copy into it; reusing or freeing the copy
 * waits for it first. */
typedef struct pt__stage {
    long long *host;
    size_t bytes;
    int pinned;               /* cudaMallocHost'ed, else malloc'ed */
    int busy;                 /* a fold job reads it */
    pt__cuevent ev;           /* NULL until a device copy used it */
} pt__stage;

struct pt_dev_buffer {
    pt_timing *t;             /* the creating timing; NULL once it is destroyed */
    struct pt_dev_buffer *next_of_t; /* t's list of buffers */
    const pt__cuda_api *cu;   /* the runtime the memory came from */
    int nslots, nphases, trace_cap, mode; /* mode: PT_DEV_MODE_* */
    unsigned flags;           /* as created, with PT_DEV_HOST when it fell back */
    char **names;             /* nphases copies */
    long long words;          /* PT_DEV_BUF_WORDS */
    long long *data;          /* device memory, or host memory when host */
    int host;                 /* records in host memory */
    int device;               /* CUDA ordinal, -1 for host memory */
    pt_stream stream;         /* of the last pt_dev_reset() */
    pt__stage stage[PT__STAGE_MAX];
    int pending;              /* fold jobs not yet resolved */
    pt_timing *fold_t;        /* the timing those jobs wait on */
    void *red_dev;            /* device scratch for the reduction's result */
    size_t red_bytes;
};

/* A free host copy of at least `bytes` for a fold of b, marked busy, in
 * *out; resolves b's oldest fold when all are in use. Returns 0 or the
 * error counted. */
PT__HIDDEN int pt__stage_get(pt_timing *t, pt_dev_buffer *b, size_t bytes, pt__stage **out);

/* ---- calibration (calibrate.c) ----------------------------------- */

typedef struct pt__calib {
    int ok;                   /* 1 when cycles_per_ns and tick_ns are measured */
    double cycles_per_ns;     /* clock64 cycles per globaltimer ns */
    double tick_ns;           /* smallest globaltimer step */
    int smid;                 /* where the calibration kernel ran */
    char name[96];            /* device name, or "host" */
    char why[192];            /* why not ok */
} pt__calib;

/* The calibration of device `device` (-1: the host clocks of host mode),
 * measured once per process. Never fails; out->ok says whether it holds. */
PT__HIDDEN void pt__calib_get(const pt__cuda_api *cu, int device, pt__calib *out);
/* Tests: make device's calibration exactly these figures (cycles_per_ns
 * <= 0 removes the override). */
PT__HIDDEN void pt__calib_set(int device, double cycles_per_ns, double tick_ns);
/* Forget every calibration and loaded kernel (the runtime changed). */
PT__HIDDEN void pt__calib_forget(void);
/* ptkit's reduction kernel on cu, or NULL with why filled. */
PT__HIDDEN pt__cukernel pt__reduce_kernel(const pt__cuda_api *cu, char *why, size_t n);

/* The embedded fatbins (generated; empty with CUDA=0). */
extern const unsigned long long pt__fatbin_calibrate[];
extern const size_t pt__fatbin_calibrate_size;
extern const unsigned long long pt__fatbin_reduce[];
extern const size_t pt__fatbin_reduce_size;

/* ---- folds (fold.c) ---------------------------------------------- */

/* One pt_dev_fold() waiting for its launch: where its records are and
 * which section they fold under. */
typedef struct pt__fold_job {
    struct pt__fold_job *next;
    pt_dev_buffer *buf;
    pt_section *node;         /* the launch section */
    const long long *data;    /* the records (or the reduction's result) to read */
    pt__stage *stage;         /* the copy data lies in; NULL when reading buf->data */
    int reduced;              /* data is a reduction result (device/pt_fold_math.h) */
    int nsm;                  /* the result's per-SM width when reduced */
    double tick_ns, ns_per_cycle; /* the calibration the reduction used */
    int calibrated;
    double launch_ns;         /* the launch's time, once known */
} pt__fold_job;

/* Fold the job's records into the tree with the launch time launch_ns,
 * then free the job. Returns 0 or the error counted. */
PT__HIDDEN int pt__fold_run(pt_timing *t, pt__fold_job *job, double launch_ns);
/* Free a job that will not run (reset, destroy, a failed wait). */
PT__HIDDEN void pt__fold_drop(pt__fold_job *job);

/* ---- events and the queue (events.c) ----------------------------- */

/* t's GPU state, created on first use; NULL when memory is short. */
PT__HIDDEN pt__gpu *pt__gpu_get(pt_timing *t);
/* 1 when t can use a device: the runtime loads and has a device. Probes
 * once per timing and describes the failure once (PT_ENODEV). */
PT__HIDDEN int pt__gpu_device(pt_timing *t);
/* The runtime table t uses. */
PT__HIDDEN const pt__cuda_api *pt__gpu_api(pt_timing *t);
/* Attach job to the latest queued occurrence of node. Returns 1 and that
 * launch's stream, or 0 when node has nothing queued. */
PT__HIDDEN int pt__gpu_fold_attach(pt_timing *t, pt_section *node, pt__fold_job *job,
                                   pt_stream *stream);
/* Queue a job whose launch time (job->launch_ns) is already known behind
 * the pending work. Returns 0 or PT_ENOMEM (the job is then dropped). */
PT__HIDDEN int pt__gpu_fold_enqueue(pt_timing *t, pt__fold_job *job);
/* Resolve queued work from the oldest while it has completed, without
 * waiting. Returns the first error met, or 0. */
PT__HIDDEN int pt__gpu_harvest(pt_timing *t);
/* Resolve queued work from the oldest until buffer b has at most `keep`
 * folds pending. Returns the first error met, or 0. */
PT__HIDDEN int pt__gpu_resolve_buffer(pt_timing *t, const pt_dev_buffer *b, int keep);
/* Buffers are listed on their timing, which forgets them at pt_destroy(). */
PT__HIDDEN void pt__gpu_buffer_link(pt_timing *t, pt_dev_buffer *b);
PT__HIDDEN void pt__gpu_buffer_unlink(pt_timing *t, pt_dev_buffer *b);
/* Say once per timing that GPU buffers were made in host memory. */
PT__HIDDEN int pt__gpu_note_host_fallback(pt_timing *t, const char *why);
/* 1 the first time since the timing's creation or reset that `what`
 * (one of PT__ONCE_*) is asked about: for faults described once. */
enum { PT__ONCE_UNCALIBRATED = 1u << 0, PT__ONCE_REDUCE = 1u << 1 };
PT__HIDDEN int pt__gpu_once(pt_timing *t, unsigned what);

/* Tests: queued occurrences and folds, and events created and alive. */
PT__HIDDEN size_t pt__gpu_pending(const pt_timing *t);
PT__HIDDEN size_t pt__gpu_events_alive(const pt_timing *t);

/* The fold's threshold for reducing on the device instead of copying
 * every record back (tests lower it). */
PT__HIDDEN extern int pt__reduce_min_slots;

#endif
