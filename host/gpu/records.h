/* The records of a kernel's phases (records.c): the memory pt_dev.h's
 * macros write, and the host copies a fold reads. Not installed. */
#ifndef PT_GPU_RECORDS_H
#define PT_GPU_RECORDS_H

#include "gpu/state.h"

#include <stddef.h>

/* The slots from which a fold reduces records on the device instead of
 * copying every record back (fold.c), and a graph resets them in the
 * graph (graph.c); tests lower it. */
PT__HIDDEN extern int pt__reduce_min_slots;

/* A buffer keeps a few host copies for folds in flight, so launches can
 * be folded one after another without waiting for the previous copy:
 * PT__STAGE_KEEP, or up to PT__STAGE_MAX for a graph whose replays
 * complete in batches (pt_graph_time_by_kernels), each batch's copies
 * in flight at once. Made as they are first needed. */
#define PT__STAGE_KEEP 4
#define PT__STAGE_MAX 16

/* Each slot's DONE count and the header's bad-slot count as the last
 * fold of some records read them, so the next one takes the differences
 * (fold.c): n slots; v NULL before. */
typedef struct pt__seen {
    long long *v;
    int n;
    long long bad;
} pt__seen;

/* A host fold's summary memory (fold_figure.c), kept with the records for
 * their next folds: a list as long as the most of their folds whose
 * figures were found at once. The summary's words follow it; its
 * histograms are left zeroed for nsm SM columns (-1: not). */
typedef struct pt__sum_mem {
    struct pt__sum_mem *next;
    size_t bytes;             /* of the words */
    int nsm;
} pt__sum_mem;

/* A host copy of a buffer's records (or of a reduction's result), pinned
 * where the runtime allows so the copy back stays asynchronous. `ev`
 * marks the end of the latest copy into it; reusing or freeing the copy
 * waits for it first. */
typedef struct pt__stage {
    long long *host;
    size_t bytes;
    int pinned;               /* cudaMallocHost'ed, else malloc'ed */
    int busy;                 /* a fold job reads it */
    int copying;              /* ev recorded after a copy into it, not yet seen complete */
    pt__cuevent ev;           /* NULL until a device copy used it */
    long copy_no;             /* the timing's count of copies back when this one was made
                                 (a ring's batch is one): what the fold thread's judge meets */
    /* A set of a graph's ring (graph_ring.c), owned there: `ring` its
     * ring, NULL for a buffer's own copies; `unfilled` until the copy
     * back of its set is on the stream, which `fill` puts there now
     * (0, or the error); the counts the set's last fold read. */
    void *ring;
    int unfilled;
    pt__cuerr (*fill)(struct pt__stage *s);
    /* Where nothing will be launched before the set's folds (a drain),
     * and its copy back, made or not, waits for replays after its own:
     * the set copied back on its own, behind its replay alone. Its
     * folds then wait for that copy; where it cannot be made, for the
     * batch's, as before. */
    void (*hasten)(struct pt__stage *s);
    pt__seen seen;
    int dropped;              /* a fold of the set was dropped unread: zeroed before its next
                                 replay, the counts it holds unknown */
} pt__stage;

struct pt_dev_records {
    pt__gpu_dep dep;          /* on t's GPU side, which forgets it at pt_destroy() */
    pt_timing *t;             /* the creating timing; NULL once it is destroyed */
    const pt__cuda_api *cu;   /* the runtime the memory came from */
    int nslots, nphases, trace_cap, mode; /* mode: PT_DEV_MODE_* */
    int cap_slots;            /* slots the memory holds (PT_LAUNCH lowers nslots) */
    unsigned flags;           /* as created, with PT_DEV_HOST when it fell back */
    char **names;             /* nphases copies */
    long long words;          /* PT_DEV_BUF_WORDS */
    long long *data;          /* device memory, or host memory when host */
    int host;                 /* records in host memory */
    int fallback;             /* there because no device could hold them */
    int device;               /* CUDA ordinal, -1 for host memory */
    int sms;                  /* the device's SMs, for a fold's shape: 0 not asked, -1 unknown */
    int sample;               /* the kernel records 1 slot in sample (pt_dev_records_sample) */
    long long grid_slots;     /* the slots of PT_LAUNCH's last grid, before sampling; 0 unknown */
    char **span_names;        /* the span kinds' names (pt_dev_records_spans), owned */
    int nspan_names;
    unsigned char *wait;      /* nphases flags: the phase is a wait (pt_dev_records_waits);
                                 NULL: none is */
    pt_stream stream;         /* of the last pt_dev_reset() */
    pt__cuevent read_ev;      /* recorded after a fold's last read of the records (a stage's) */
    pt_stream read_stream;    /* the stream that read runs on */
    pt__stage stage[PT__STAGE_MAX];
    int stages;               /* of them in use at most: 0 for PT__STAGE_KEEP */
    int pending;              /* fold jobs not yet resolved */
    long reset_gen;           /* pt_dev_reset calls so far */
    long fold_gen;            /* reset_gen of the last fold taken, or -1 */
    pt_timing *fold_t;        /* the timing those jobs wait on */
    const pt_section *fold_last; /* the section the latest fold job goes under */
    long fold_seq;            /* fold jobs made so far (the latest's number) */
    struct pt__sum_mem *sums; /* host folds' summary memory, kept for the next (below) */
    void *red_dev;            /* device scratch for the reduction's result */
    size_t red_bytes;
    /* A CUDA graph's replays and PT_LAUNCH's later launches are not reset
     * (graph.c, launch.c): the counts the last fold read. */
    pt__seen seen;
    /* PT_LAUNCH resets such records only for its first launch (and after
     * any other reset, or a new slot count): 1 + reset_gen after that
     * reset, 0 none yet; and how the launch under way folds (fold.h's
     * PT__FOLD_DIFF or PT__FOLD_DIFF0, 0 for records it resets). */
    long launch_base;
    int launch_diff;
    /* A CUDA graph's copy nodes (graph.c) read the records inside each
     * replay: `spare`, pinned, `spare_bytes` long, is where they write
     * between ptkit's replays (a replay launched behind its back);
     * `graph_stage` the copy a replay wrote, handed to its fold (fold.c);
     * `read_in_graph` says the last read was such a node's, on
     * read_stream, so a write on another stream waits for that stream
     * (read_mark, recorded then). */
    long long *spare;
    size_t spare_bytes;
    long long node_reads;     /* folds that read a copy node's copy */
    long long ring_reads;     /* folds that read a set of a graph's ring (graph_ring.c) */
    char ring_off[96];        /* why the ring last could not serve a kernel of these, or "" */
    pt__stage *graph_stage;
    int read_in_graph;
    pt__cuevent read_mark;
};

/* The header the host writes ahead of nslots slots of b's shape. */
PT__HIDDEN void pt__records_header(const pt_dev_records *b, long long nslots,
                                   long long hdr[PT_DEV_HDR]);

/* A free host copy of at least `bytes` for a fold of b, marked busy, in
 * *out; resolves b's oldest fold when all are in use. Returns 0 or the
 * error counted. */
PT__HIDDEN int pt__stage_get(pt_timing *t, pt_dev_records *b, size_t bytes, pt__stage **out);

/* What a reset clears (pt_dev_reset(), a graph's reset node): the
 * header's bad-slot words and every slot, one span of bytes at dst (a
 * multiple of 8); the rest of the header keeps what the host wrote. One
 * memset, where there were two: each is an operation on the stream, or a
 * node of a graph, that every launch and replay pays for. */
typedef struct pt__reset_part {
    void *dst;
    size_t bytes;
} pt__reset_part;
PT__HIDDEN pt__reset_part pt__reset_of(const pt_dev_records *b);
/* The same in records of `bytes` at data laid out as b's are (a set of a
 * graph's ring, graph_ring.c). */
PT__HIDDEN pt__reset_part pt__reset_at(long long *data, size_t bytes);

/* The slots a launch of blocks x threads writes into b: a block's (or
 * with PT_DEV_WARP_SLOTS a warp's), one in b->sample of them; -1 when
 * that is no count from 1 to INT_MAX. b->grid_slots keeps the grid's. */
PT__HIDDEN long long pt__launch_slots(pt_dev_records *b, long long blocks, long long threads);

/* Before records b are written on `stream` (a reset, or a launch that
 * writes them unreset): a fold's copy (or reduction) queued on another
 * stream may not have read them yet, so the stream waits for it, on the
 * device where the runtime can (cudaStreamWaitEvent), else the host does;
 * but not under a stream capture, where a wait on an event from outside
 * it would invalidate the user's capture. 0, or the CUDA error. */
PT__HIDDEN pt__cuerr pt__records_await_read(pt_dev_records *b, pt_stream stream);

/* Grows b to nslots records (never shrinks it), zeroed, after resolving
 * the folds that read the present ones. Returns 0 or the error counted. */
PT__HIDDEN int pt__records_grow(pt_timing *t, pt_dev_records *b, int nslots);

#endif
