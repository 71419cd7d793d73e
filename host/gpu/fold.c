/* The fold: pt_dev_fold(), a launch's block records brought back to the
 * host and folded under its section (fold_apply.c) once its time is known.
 *
 * pt_dev_fold(t, buf, "step") finds the section "step" under the open
 * section and takes the latest occurrence of it as the launch the records
 * belong to. The records are copied back on that launch's stream and the
 * fold waits in the queue behind the launch's event pair (queue.c), so
 * nothing waits for the GPU here; a CPU-timed launch over host memory
 * folds at once.
 *
 * Grids of at least pt__reduce_min_slots slots are summarized on the
 * device by device/reduce.cu, which runs the same per-slot arithmetic, and
 * only the summary is copied back. */
#include "gpu/fold.h"

#include "core/clock.h"
#include "core/errors.h"
#include "core/threads.h"
#include "core/tree.h"
#include "gpu/calibrate.h"
#include "gpu/fold_apply.h"
#include "gpu/fold_copy.h"
#include "gpu/fold_worker.h"
#include "gpu/gpu.h"
#include "gpu/queue.h"

#include "pt_fold_math.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One pt_dev_fold() waiting for its launch: where its records are and
 * which section they fold under. It waits in the queue (queue.c) as a
 * waiter, the first member. */
typedef struct fold_job {
    pt__waiter w;
    pt__fold_src src;         /* what it reads and where it goes */
    pt__stage *stage;         /* the copy src.data lies in; NULL when reading the buffer */
    int counted;              /* its copy landed, with the replay's counts (job_ready_to_read) */
    int count_err;            /* no memory for the replay's counts */
    int in_replay;            /* a copy node of a graph's replay wrote its copy: whole once
                                 the replay is, which only its resolution knows */
    long seq;                 /* its place among the buffer's folds (b->fold_seq) */
    pt__fold_fig fig;         /* its figures (fold_apply.h) */
    pt__task task;            /* finding them on the fold's thread (job_prepare) */
    pt__worker *worker;       /* that thread, once handed the task; NULL before */
} fold_job;

static void job_release(fold_job *j)
{
    pt_dev_records *b = j->src.buf;
    /* The fold's thread reads the copy: it is done with it first (a job
     * dropped unrun is taken back where the thread has not begun it). */
    if (j->worker)
        pt__worker_cancel(j->worker, &j->task);
    pt__fold_fig_free(&j->src, &j->fig);
    if (j->stage)
        j->stage->busy = 0;
    if (b->pending > 0 && --b->pending == 0)
        b->fold_t = NULL;
    free(j);
}

/* A graph's replay that reset nothing (graph.c): in the job's copy, each
 * slot's DONE and the header's bad-slot count become this replay's, the
 * differences from what the last fold of the records read (or, the first
 * replay after a reset, what they are), so a slot no block ended in this
 * replay reads 0 and one ended twice 2, as after a reset. The folds of one
 * buffer run in the order of its replays (the queue's), so each takes the
 * one before. A count below the last one (the records reset behind
 * ptkit's back) is taken as it is. O(slots). Returns 0, or -1 without
 * memory for the counts (nothing changed). */
static int replay_counts(fold_job *j)
{
    pt_dev_records *b = j->src.buf;
    long long *d = (long long *)j->stage->host, sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap);
    /* A ring's set (graph_ring.c) keeps its own counts: the records' own
     * are the stream's copies'. */
    pt__seen *sn = j->stage->ring ? &j->stage->seen : &b->seen;

    if (sn->n != b->nslots || !sn->v) {
        long long *s = calloc((size_t)b->nslots, sizeof *s);
        if (!s)
            return -1;
        free(sn->v);
        sn->v = s;
        sn->n = b->nslots;
        sn->bad = 0;
    } else if (j->src.delta == 2) {
        memset(sn->v, 0, (size_t)sn->n * sizeof *sn->v);
        sn->bad = 0;
    }
    for (int s = 0; s < b->nslots; s++) {
        long long *done = d + PT_DEV_HDR + s * sw + PT_DEV_S_DONE, now = *done;
        *done = now >= sn->v[s] ? now - sn->v[s] : now;
        sn->v[s] = now;
    }
    {
        long long now = d[PT_DEV_H_BAD_SLOT];
        d[PT_DEV_H_BAD_SLOT] = now >= sn->bad ? now - sn->bad : now;
        sn->bad = now;
    }
    return 0;
}

/* Waits for the job's copy: 0, or the wait's error (the copy still
 * marked in flight). Its set of a ring not yet copied back is copied
 * now (fill), which only the timing's thread does. */
static pt__cuerr copy_wait(fold_job *j)
{
    if (j->stage && j->stage->unfilled) {
        pt__cuerr e = j->stage->fill(j->stage);
        if (e)
            return e;
    }
    if (j->stage && j->stage->ev && j->stage->copying) {
        pt__cuerr e = j->src.buf->cu->EventSynchronize(j->stage->ev);
        j->stage->copying = e != 0;
        if (e)
            return e;
    }
    return 0;
}

/* Takes the replay's counts (records read as differences), once: 0, or
 * -1 without memory for them (count_err, said by the fold). */
static int take_counts(fold_job *j)
{
    if (j->src.delta && j->stage && !j->src.reduced && replay_counts(j) < 0) {
        j->count_err = 1;
        return -1;
    }
    j->counted = 1;
    return 0;
}

/* A fold the fold's thread was in the middle of when this process was
 * forked from its parent: lost. */
#define JOB_LOST (-2)

/* Waits for the job's copy and makes its counts the replay's, once: 0;
 * else the copy's wait failed (its error), there was no memory for the
 * counts (-1, nothing changed), or JOB_LOST; fold_run() says each, a
 * span's reader (job_span) meets it again there. A job handed to the
 * fold's thread had its copy landed and its counts taken then
 * (job_prepare): the thread's figures are waited for. */
static pt__cuerr job_ready_to_read(fold_job *j)
{
    if (j->worker && pt__worker_wait(j->worker, &j->task) == PT__TASK_LOST)
        return JOB_LOST;
    if (j->count_err)
        return -1;
    if (j->counted)
        return 0;
    if (j->stage) {
        pt__cuerr e = copy_wait(j);
        if (e)
            return e;
    }
    return take_counts(j);
}

/* The figures' settings, on the timing's thread: the conversion; the
 * heatmap, which is the latest fold's, drawn unless a fold of the same
 * records into the same section was queued after this one (its picture
 * no report would show); and the summary's memory, the buffer's. */
static void fig_setup(pt_timing *t, fold_job *j)
{
    pt_dev_records *b = j->src.buf;

    pt__fold_conv_get(t, &j->src, &j->fig.cv);
    j->fig.want_heat = j->seq == b->fold_seq || b->fold_last != j->src.node;
    pt__fold_fig_take(b, &j->fig);
}

/* The fold's thread's task: the figures of a copy landed and counted.
 * It reads the copy and writes the figures, nothing else; no call into
 * the runtime. */
static void job_find(pt__task *k)
{
    fold_job *j = (fold_job *)(void *)((char *)k - offsetof(fold_job, task));

    pt__fold_figure(&j->src, &j->fig);
}

/* Waits for the job's copy, folds it, frees the job. */
static int fold_run(pt_timing *t, fold_job *j, double launch_ns)
{
    pt__cuerr e = job_ready_to_read(j);
    int rc;

    if (e == -1) {
        rc = pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory for the replay's "
                      "counts; nothing folded", j->src.node->name);
        job_release(j);
        return rc;
    }
    if (e == JOB_LOST) {
        rc = pt__fail(t, PT_ESTATE, "pt_dev_fold(\"%s\"): the fold was under way on the "
                      "parent's fold thread when this process was forked; nothing folded",
                      j->src.node->name);
        j->src.node->folded = 0;
        /* What the parent's thread was writing is left as it is (not
         * freed): it may be half written. */
        memset(&j->fig, 0, sizeof j->fig);
        job_release(j);
        return rc;
    }
    if (e) {
        rc = pt__fail(t, PT_ECUDA,
                      "pt_dev_fold(\"%s\"): waiting for the copy of the records: %s; nothing folded",
                      j->src.node->name, pt__cuda_errstr(j->src.buf->cu, e));
        j->src.node->folded = 0; /* nothing folded: it may be folded again */
        if (j->src.buf->fold_gen == j->src.gen)
            j->src.buf->fold_gen = -1;
        job_release(j);
        return rc;
    }
    if (!j->worker && !j->src.reduced)
        fig_setup(t, j);
    rc = pt__fold_apply(t, &j->src, &j->fig, launch_ns);
    job_release(j);
    return rc;
}

/* ---- waiting in the queue ---------------------------------------- */

/* Whether the job's copy has landed, asked without waiting: 1, 0 not
 * yet, or -1 where its copy failed (the fold's wait meets the error
 * again and says it). */
static int copy_landed(const fold_job *j)
{
    pt__cuerr e;

    if (j->stage && j->stage->unfilled)
        return 0; /* a ring's set not yet copied back: its batch's end, or a wait, does it */
    if (!(j->stage && j->stage->ev && j->stage->copying))
        return 1;
    e = j->src.buf->cu->EventQuery(j->stage->ev);
    if (e == PT__CU_NOT_READY)
        return 0;
    j->stage->copying = e != 0;
    return e ? -1 : 1;
}

/* Ready once its copy has landed (or failed) and, where the fold's
 * thread was handed its figures, they are found. */
static int job_ready(const pt__waiter *w)
{
    fold_job *j = (fold_job *)(void *)w;

    return j->worker ? pt__worker_ran(j->worker, &j->task) : copy_landed(j) != 0;
}

/* Whether the job is one for the fold's thread not yet handed over: a
 * copy of device records, not a reduced summary, nothing taken from it
 * yet. */
static int to_hand_over(const fold_job *j)
{
    return !j->worker && !j->counted && !j->count_err && j->stage && !j->src.reduced &&
           !j->src.buf->host;
}

/* Hands the job to the fold's thread once its copy has landed (a copy
 * of device records, not reduced), asked without waiting: its replay's
 * counts are taken here, in the queue's order, which is the order the
 * folds of the same records take them in; the thread then finds the
 * figures while this one goes on. 1 when it is handed over, or needs
 * not be (it is then folded on this thread at its turn); 0 while it
 * cannot be yet, so that nothing queued after it is: its copy has not
 * landed (or failed), a node of the replay wrote it, which is whole only
 * once the replay is, or folds stay on this thread for now: the first
 * job of each copy met landed has that judged (pt__fold_judge). */
static int job_prepare(pt_timing *t, pt__waiter *w)
{
    fold_job *j = (fold_job *)(void *)w;
    pt__worker *wk;

    if (!to_hand_over(j))
        return 1;
    if (j->in_replay || pt__fold_mode(t) == PT__FOLD_NEVER || copy_landed(j) != 1)
        return 0;
    /* Met landed, unwaited for: the first job of its copy has it judged. */
    pt__fold_judge(t, j->stage->copy_no, 1);
    if (!pt__fold_hand_over(t))
        return 0;
    if (!(wk = pt__fold_worker(t)) || take_counts(j) < 0)
        return 1;
    fig_setup(t, j);
    j->task.run = job_find;
    j->worker = wk;
    pt__worker_submit(wk, &j->task);
    return 1;
}

/* Waits for the job's copy, where it is to be handed over (job_prepare):
 * before a fold is resolved by a wait, so the copies landed with its own
 * go to the fold's thread. The wait says whether the folds to come go to
 * it (pt__fold_judge). In a drain (pt_sync, a report) a ring's set is
 * copied back on its own first, so the wait is for its replay alone:
 * the folds then follow the GPU replay by replay, where they waited for
 * their batch's last, and only the last replay's folds come after the
 * GPU is done. An error is met again, and said, by its fold. */
static void job_land(pt_timing *t, pt__waiter *w)
{
    fold_job *j = (fold_job *)(void *)w;
    pt__gpu *g = pt__gpu_of(t);
    int64_t t0;
    int landed, c;

    if (!to_hand_over(j) || j->in_replay)
        return;
    c = copy_landed(j);
    landed = c == 1;
    if (!landed) {
        if (!c && g->draining && j->stage->hasten)
            j->stage->hasten(j->stage);
        t0 = pt__mono_ns();
        (void)copy_wait(j);
        g->waited += pt__mono_ns() - t0;
    }
    pt__fold_judge(t, j->stage->copy_no, landed);
}

static int job_run(pt_timing *t, pt__waiter *w, double launch_ns)
{
    return fold_run(t, (fold_job *)(void *)w, launch_ns);
}

static void job_drop(pt__waiter *w)
{
    fold_job *j = (fold_job *)(void *)w;

    /* Records counted by differences (a graph's replays, PT_LAUNCH's
     * later launches): the ENDs of the launch dropped were never taken,
     * so the next launch of them resets them first, and does not count
     * those ENDs as its own. */
    if (j->src.delta)
        j->src.buf->reset_gen++;
    /* A set of a ring counts on from its last fold's read: this one's
     * ENDs were never taken, so the set is zeroed before it is written
     * again (graph_ring.c). */
    if (j->src.delta && j->stage && j->stage->ring)
        j->stage->dropped = 1;
    job_release(j);
}

/* The blocks' span for a replay timed by its kernels (queue.c): the
 * first BEGIN and last END of the slots the fold takes as ended in it,
 * the kernel's own wall as fold_apply.c figures it. O(slots). */
static int job_span(const pt__waiter *w, long long *gt0, long long *gt1)
{
    fold_job *j = (fold_job *)(void *)w;
    const pt_dev_records *b = j->src.buf;
    const long long *d = j->src.data;
    long long sw = PT_DEV_SLOT_WORDS(b->nphases, b->trace_cap), lim = pt__count_limit(b->nslots);
    int any = 0;

    if (!d || job_ready_to_read(j) != 0)
        return 0;
    if (j->src.reduced) {
        const pt__rword *r = (const pt__rword *)(const void *)d;
        if (!r[PT__R_GT0_INV].u || r[PT__R_GT1_MAX].i <= 0)
            return 0;
        *gt0 = (long long)~r[PT__R_GT0_INV].u;
        *gt1 = r[PT__R_GT1_MAX].i;
        return 1;
    }
    for (int s = 0; s < b->nslots; s++) {
        const long long *rec = d + PT_DEV_HDR + s * sw;
        if (pt__slot_ok(rec, b->nphases, b->trace_cap, lim) <= 0 || rec[PT_DEV_S_GT0] < 0 ||
            rec[PT_DEV_S_GT1] <= 0)
            continue;
        if (!any || rec[PT_DEV_S_GT0] < *gt0)
            *gt0 = rec[PT_DEV_S_GT0];
        if (!any || rec[PT_DEV_S_GT1] > *gt1)
            *gt1 = rec[PT_DEV_S_GT1];
        any = 1;
    }
    return any;
}

static const pt__waiter_ops job_ops = { .ready = job_ready, .run = job_run, .drop = job_drop,
                                        .span = job_span, .prepare = job_prepare,
                                        .land = job_land };

int pt__dev_fold(pt_timing *t, pt_dev_records *b, const char *title, int every_slot)
{
    return pt__dev_fold_in(t, b, title, NULL, PT__FOLD_LAUNCH, every_slot);
}

int pt__dev_fold_in(pt_timing *t, pt_dev_records *b, const char *title, const char *role,
                    int mode, int every_slot)
{
    pt_section *parent, *node, *dst;
    uint64_t occurrence;
    fold_job *j;
    pt_stream stream = NULL;
    char stack[256];
    int queued, rc, stale = 0, j_stale;

    if (!t)
        return 0;
    if ((rc = pt__owner_only(t, "pt_dev_fold")) < 0)
        return rc;
    if (!b || !title)
        return pt__fail(t, PT_EINVAL, "pt_dev_fold: NULL %s", b ? "title" : "buffer");
    if (!t->enabled)
        return 0;
    parent = pt__top(t);
    node = pt__child_find(parent, title);
    if (!node && parent != &t->root && strcmp(parent->name, title) == 0)
        return pt__fail(t, PT_ESTATE, "pt_dev_fold(\"%s\"): the launch is still open: stop it "
                        "(pt_stop_gpu, or pt_stop) before folding it", title);
    if (!node) {
        pt__stack_str(&t->main, stack, sizeof stack);
        return pt__fail(t, PT_ENOTFOUND, "pt_dev_fold(\"%s\"): no such section under \"%s\" (open: %s)",
                        title, parent->name, stack);
    }
    /* A buffer's folds wait on one timing at a time. */
    if (b->pending && b->fold_t && b->fold_t != t)
        pt__queue_resolve_until(b->fold_t, &b->pending, 0);
    /* Take in whatever has finished; this never waits. */
    pt__queue_harvest(t);
    queued = pt__queue_attach(t, node, NULL, &stream);
    if (!queued && node->count == 0)
        return pt__fail(t, PT_ENOTFOUND,
                        "pt_dev_fold(\"%s\"): the section has no finished occurrence to fold into",
                        title);
    /* A role is a section of the launch, of its kind (the GPU's, or in
     * host mode the CPU's), whose phases add up to the launch as a
     * launch's do: the roles ran at once. */
    dst = role ? pt__child(t, node, role) : node;
    if (!dst)
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", title);
    if (role && dst->count == 0 && !dst->child)
        dst->kind = node->kind;
    if (role && (dst->kind != node->kind || dst->phase))
        return pt__fail(t, PT_EINVAL, "pt_dev_fold_role(\"%s\", \"%s\"): the launch has a "
                        "section of that title that is no %s", title, role,
                        (mode & PT__FOLD_WHERE) == PT__FOLD_ROLE ? "role" : "kernel of it");
    /* A launch (or one of its roles) folds once: a second fold of the
     * same occurrence would add its phases again (children twice the
     * launch). A role (or a graph's kernel) marks the occurrence it is
     * for, a queued one's too (the count once all pending have resolved),
     * as several roles may wait on one launch, and replays queue up. */
    occurrence = node->count + (queued ? pt__queue_pending_of(t, node) : 0);
    if (role ? dst->folded == occurrence
             : queued ? pt__queue_waited(t, node) : node->folded == node->count)
        return pt__fail(t, PT_ESTATE,
                        "pt_dev_fold%s(\"%s%s%s\"): its latest occurrence is folded "
                        "already; a launch folds once: time the next launch, then fold it",
                        role ? "_role" : "", title, role ? "\", \"" : "", role ? role : "");
    /* Marked now, as a job queued behind other work may run later. */
    if (role)
        dst->folded = occurrence;
    else if (!queued)
        node->folded = node->count;
    /* Records folded once and not reset since: a slot this launch did not
     * reach still holds the previous launch's figures, which would be
     * folded again. Said; the fold goes on (a kernel that writes every
     * slot leaves nothing stale). Counted when asked, not when applied, so
     * a fold still queued behind its launch counts too. */
    j_stale = b->fold_gen == b->reset_gen && !(mode & (PT__FOLD_DIFF | PT__FOLD_DIFF0));
    if (j_stale)
        stale = pt__fail(t, PT_ESTATE, "pt_dev_fold(\"%s\"): the records were folded already "
                         "and not reset since: a slot this launch did not reach shows the "
                         "previous launch's figures (pt_dev_reset before each launch)", title);

    j = calloc(1, sizeof *j);
    if (!j) {
        dst->folded = 0;
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold(\"%s\"): out of memory", title);
    }
    j->w.ops = &job_ops;
    j->src.buf = b;
    j->src.node = dst;
    j->src.launch = node;
    j->src.gen = b->fold_gen = b->reset_gen;
    j->src.every_slot = every_slot;
    j->src.devtime = (mode & PT__FOLD_WHERE) == PT__FOLD_KERNEL;
    j->src.delta = mode & PT__FOLD_DIFF ? 1 : mode & PT__FOLD_DIFF0 ? 2 : 0;
    j->src.stale = j_stale;
    b->pending++;
    b->fold_t = t;
    b->fold_last = dst;
    j->seq = ++b->fold_seq;
    if (b->host && !queued) {
        j->src.data = b->data;
        return (rc = fold_run(t, j, node->last_ns)) ? rc : stale;
    }
    if (b->host) {
        /* The launch is still pending: keep the records as they are now,
         * so the buffer may be reset and reused before it resolves. */
        size_t bytes = (size_t)b->words * sizeof(long long);
        if ((rc = pt__stage_get(t, b, bytes, &j->stage)) != 0) {
            job_release(j);
            dst->folded = 0; /* nothing folded: it may be folded again */
            return rc;
        }
        memcpy(j->stage->host, b->data, bytes);
        j->src.data = j->stage->host;
    } else if (b->graph_stage && b->graph_stage->ring) {
        /* A set of a graph's ring, which the replay's kernel wrote in
         * place of the records: copied back with its batch (graph_ring.c),
         * the records untouched. */
        j->stage = b->graph_stage;
        j->src.data = j->stage->host;
        b->graph_stage = NULL;
        b->ring_reads++;
    } else if (b->graph_stage) {
        /* A graph's copy node wrote it, in the replay the launch's events
         * enclose: nothing to copy or wait for but them. */
        j->stage = b->graph_stage;
        j->stage->copying = 0;
        j->in_replay = 1;
        j->src.data = j->stage->host;
        b->graph_stage = NULL;
        b->node_reads++;
        b->read_ev = NULL;
        b->read_stream = b->stream;
        b->read_in_graph = 1;
    } else if ((rc = pt__fold_copy_back(t, b, &j->src, &j->stage, queued ? stream : b->stream, title)) != 0) {
        job_release(j);
        dst->folded = 0;
        return rc;
    }
    if (pt__queue_attach(t, node, &j->w, NULL))
        return stale;
    /* The launch was resolved meanwhile (to free a host copy): its time
     * is known now. */
    if (b->host)
        return (rc = fold_run(t, j, node->last_ns)) ? rc : stale;
    pt__gpu_get(t); /* the queue lives there; without it the job is dropped */
    if (pt__queue_enqueue(t, &j->w, node->last_ns) < 0)
        return pt__fail(t, PT_ENOMEM, "pt_dev_fold: out of memory");
    return stale;
}

int pt_dev_clock_get(const pt_timing *t, pt_dev_clock *out)
{
    if (!out)
        return PT_EINVAL;
    if (!t) {
        memset(out, 0, sizeof *out);
        out->device = -1;
        return 0;
    }
    *out = t->dev_clock;
    return 0;
}

/* The previous name, kept for one release (pt.h). */
int pt_dev_clock_info(const pt_timing *t, pt_dev_clock *out)
{
    return pt_dev_clock_get(t, out);
}

int pt_dev_fold(pt_timing *t, pt_dev_records *b, const char *title)
{
    return pt__dev_fold(t, b, title, 0);
}

int pt_dev_fold_role(pt_timing *t, pt_dev_records *b, const char *title, const char *role)
{
    if (t && !role)
        return pt__fail(t, PT_EINVAL, "pt_dev_fold_role(\"%s\"): NULL role", title ? title : "");
    return pt__dev_fold_in(t, b, title, role, PT__FOLD_ROLE, 0);
}
