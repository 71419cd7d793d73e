/* A timing's tree as bytes, and bytes merged back into a tree: how one
 * process's sections reach another's (pt_mpi.h gathers every MPI rank's
 * tree to rank 0 this way).
 *
 * The format, version 5, every integer and double little-endian whatever
 * the machine (doubles as their IEEE-754 bits):
 *
 *   "PTPK"  u32 version  u64 sections
 *   then each section in preorder:
 *     u32 depth         1 for a child of the root; at most one more than
 *                       the previous section's
 *     u8 kind           enum pt__kind
 *     u8 flags          bit 0: phase figures follow; bit 1 (version 2):
 *                       host-mode records showed its work ran inside it
 *     u32 name_len      then the title's bytes, no NUL among them
 *     u64 count
 *     f64 total, first, last, mean, m2, min, max   (ns; Welford's summary
 *                                                   of occurrences 2..count)
 *     f64 read, written, flops, xfer[3], mem_hwm
 *     version 2:      u64 cpu_timed (occurrences of a GPU section timed by
 *                     the CPU clock)  f64 ovh (a phase's marks' cost, ns)
 *     phase figures:  u64 blocks  f64 hits, block_sum, block_min, block_max
 *                     u32 nsm  then nsm f64 per-SM totals
 *                     version 3: u32 nbins  then nbins (u16 bin, u64 count)
 *                     pairs, bins rising, counts > 0: the per-block time
 *                     histogram (device/pt_hist.h) where it is not empty
 *     version 4, flag bit 2, a launch's shape (model.h's pt__shape):
 *                     u64 folds, resident, sms, slowest block, its SM,
 *                     stragglers, the last SM, sample_every, sample_slots
 *                     u8 on_host  f64 waves, span,
 *                     tail, idle (sums over the folds), slowest  u32 nslow
 *                     then nslow (u32 name_len, the name's bytes, f64 time):
 *                     the slowest block's phases  u32 nspans  then per
 *                     span kind: u32 name_len, the name's bytes, u64 count,
 *                     unmatched  f64 total, max  u32 nbins, (u16 bin, u64
 *                     count) pairs as a phase's histogram
 *                     version 5: u64 overlap folds  f64 busy, overlap,
 *                     wait, bubble (sums over them, ns)
 *
 * Versions 1 to 4, the same without bit 1 and the version 2 figures,
 * without the histogram, without the shape, or without the overlap, are
 * still read (as 0 and none of them).
 *
 * These are the figures pt__merge_tree() pools, so a tree packed on one
 * rank and merged on another adds up exactly as if it had been recorded
 * there. The reader checks every length against the bytes left, every
 * depth, kind and flag, that every double is finite and >= 0 (times,
 * spreads, bytes and FLOPS are never negative), that a section's figures
 * agree with each other (consistent()) and that the buffer ends with the
 * last section, before it touches the timing. There is no checksum: the
 * bytes travel in memory and through MPI, which deliver them whole, and
 * the checks above refuse what no run could have recorded. Neither side
 * recurses, so a tree packs and merges however deep it is. */
#include "core/errors.h"
#include "core/gate.h"
#include "core/merge.h"
#include "core/ranks.h"
#include "core/pack.h"
#include "core/shape.h"
#include "core/threads.h"
#include "core/timing.h"
#include "core/tree.h"
#include "pt_hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PACK_VERSION 5u
#define PACK_HEADER 16u
#define PACK_NFIG 14

static const unsigned char magic[4] = { 'P', 'T', 'P', 'K' };

/* ---- writing ------------------------------------------------------ */

static void put_phase(pt__wbuf *w, const pt__phase_ext *p)
{
    pt__pk_put_u(w, p->blocks, 8);
    pt__pk_put_f(w, p->hits);
    pt__pk_put_f(w, p->block_sum_ns);
    pt__pk_put_f(w, p->block_min_ns);
    pt__pk_put_f(w, p->block_max_ns);
    /* A host-mode fold's totals are by host CPU: none are reported. */
    pt__pk_put_u(w, (uint64_t)(p->nsm > 0 && !p->on_host ? p->nsm : 0), 4);
    for (int i = 0; i < p->nsm && !p->on_host; i++)
        pt__pk_put_f(w, p->sm_ns[i]);
    pt__pk_put_hist(w, p->hist);
}

static void put_section(pt__wbuf *w, const pt_section *s, uint32_t depth)
{
    const double fig[PACK_NFIG] = { s->total_ns, s->first_ns, s->last_ns, s->mean_ns,
                                    s->m2_ns, s->min_ns, s->max_ns, s->read, s->written,
                                    s->flops, s->xfer[0], s->xfer[1], s->xfer[2], s->mem_hwm };
    const pt__phase_ext *p = s->phase;

    pt__pk_put_u(w, depth, 4);
    pt__pk_put_u(w, (uint64_t)s->kind, 1);
    const pt__shape *sh =
        s->shape && (s->shape->folds || s->shape->sample_every > 1 || s->shape->nspans ||
                     s->shape->ovl_folds)
            ? s->shape : NULL;

    pt__pk_put_u(w, (p ? 1u : 0u) | (s->ran_here ? 2u : 0u) | (sh ? 4u : 0u), 1);
    pt__pk_put_u(w, s->name_len, 4);
    pt__pk_put(w, s->name, s->name_len);
    pt__pk_put_u(w, s->count, 8);
    for (int i = 0; i < PACK_NFIG; i++)
        pt__pk_put_f(w, fig[i]);
    pt__pk_put_u(w, s->cpu_timed, 8);
    pt__pk_put_f(w, s->ovh_ns);
    if (p)
        put_phase(w, p);
    if (sh)
        pt__pack_put_shape(w, sh);
}

int pt_pack(pt_timing *t, void **buf, size_t *len)
{
    pt__wbuf w = { NULL, 0, 0, 0 };
    uint64_t n = 0;
    size_t open = 0;

    if (!buf || !len)
        return pt__fail(t, PT_EINVAL, "pt_pack: NULL %s", buf ? "len" : "buf");
    *buf = NULL;
    *len = 0;
    pt__pk_put(&w, magic, sizeof magic);
    pt__pk_put_u(&w, PACK_VERSION, 4);
    pt__pk_put_u(&w, 0, 8); /* the count, written at the end */
    if (t) {
        pt__read_begin(t);
        pt__settle(t);
        /* Preorder without recursion (tree.h). */
        for (const pt_section *s = t->root.child; s; s = pt__tree_next(s, &t->root)) {
            uint32_t depth = (uint32_t)s->depth;
            if (s->name_len > UINT32_MAX || (uint64_t)s->depth > UINT32_MAX) {
                pt__read_end(t);
                free(w.p);
                return pt__fail(t, PT_ERANGE, "pt_pack: \"%.64s\" is %s", s->name,
                                s->name_len > UINT32_MAX ? "too long a title to pack"
                                                         : "nested too deep to pack");
            }
            put_section(&w, s, depth);
            n++;
        }
        open = pt__open_count(t);
        pt__read_end(t);
    }
    if (w.oom) {
        free(w.p);
        return pt__fail(t, PT_ENOMEM, "pt_pack: out of memory for %llu sections",
                        (unsigned long long)n);
    }
    for (int i = 0; i < 8; i++)
        w.p[8 + i] = (unsigned char)(n >> (8 * i));
    *buf = w.p;
    *len = w.n;
    if (!t || !open)
        return 0;
    return pt__fail(t, PT_EOPEN, "pt_pack: packed without the running occurrence of %zu open "
                    "section%s", open, open == 1 ? "" : "s");
}

/* ---- reading ------------------------------------------------------ */

/* Figures that a run can record: counts every JSON reader takes as
 * integers (merge.c saturates there), the first and last occurrence
 * within the total, the rest's mean within their least and largest, no
 * more CPU-clocked occurrences than occurrences. Bytes that break any of
 * these were not written by pt_pack(). */
static int consistent(pt__rbuf *r, const pt_section *s)
{
    if (s->count > (uint64_t)INT64_MAX || s->cpu_timed > s->count)
        return pt__pk_fault(r, "a count above 2^63-1, or more CPU-clocked occurrences than "
                        "occurrences");
    if (s->count == 0 ? s->total_ns != 0
                      : !pt__pk_at_most(s->first_ns, s->total_ns) ||
                            !pt__pk_at_most(s->last_ns, s->total_ns))
        return pt__pk_fault(r, "a first or last occurrence longer than the total");
    if (s->count >= 2 && (!pt__pk_at_most(s->min_ns, s->max_ns) ||
                          !pt__pk_at_most(s->min_ns, s->mean_ns) ||
                          !pt__pk_at_most(s->mean_ns, s->max_ns)))
        return pt__pk_fault(r, "a mean, least or largest occurrence out of order");
    return 0;
}

static int get_phase(pt__rbuf *r, pt_section *s)
{
    pt__phase_ext *p = calloc(1, sizeof *p);
    uint64_t nsm;

    if (!p)
        return PT_ENOMEM;
    s->phase = p;
    if (pt__pk_get_u(r, &p->blocks, 8, "phase figures") < 0 ||
        pt__pk_get_f(r, &p->hits, "phase figures") < 0 ||
        pt__pk_get_f(r, &p->block_sum_ns, "phase figures") < 0 ||
        pt__pk_get_f(r, &p->block_min_ns, "phase figures") < 0 ||
        pt__pk_get_f(r, &p->block_max_ns, "phase figures") < 0 ||
        pt__pk_get_u(r, &nsm, 4, "phase figures") < 0)
        return PT_EPARSE;
    if (p->blocks > (uint64_t)INT64_MAX ||
        (p->blocks && !pt__pk_at_most(p->block_min_ns, p->block_max_ns)))
        return pt__pk_fault(r, "a block count above 2^63-1, or a block's least time above "
                               "its largest");
    if (nsm > (r->n - r->at) / 8 || nsm > INT32_MAX)
        return pt__pk_fault(r, "more per-SM figures than bytes left");
    if (nsm) {
        p->sm_ns = malloc((size_t)nsm * sizeof *p->sm_ns);
        if (!p->sm_ns)
            return PT_ENOMEM;
        p->nsm = (int)nsm;
        for (uint64_t i = 0; i < nsm; i++)
            if (pt__pk_get_f(r, &p->sm_ns[i], "per-SM figures") < 0)
                return PT_EPARSE;
    }
    if (r->version >= 3)
        return pt__pk_get_hist(r, &p->hist, p->blocks, "the block histogram",
                               "more block times in the histogram than blocks");
    return 0;
}

/* The sections on the path to the one being read, by depth; grows with
 * the depth, which the bytes bound. */
typedef struct path {
    pt_section **v;
    size_t cap;
} path;

/* One section read under the section at depth-1 on the path to it. */
static int get_section(pt__rbuf *r, path *pa, uint32_t *top)
{
    uint64_t depth, kind, flags, name_len;
    double fig[PACK_NFIG];
    pt_section *s, *parent;
    int rc;

    if (pt__pk_get_u(r, &depth, 4, "a section's depth") < 0)
        return PT_EPARSE;
    if (depth < 1 || depth > (uint64_t)*top + 1 || depth > INT32_MAX)
        return pt__pk_fault(r, "a depth that does not follow the previous section's");
    if (depth >= pa->cap) {
        size_t cap = pa->cap * 2;
        pt_section **v = realloc(pa->v, cap * sizeof *v);
        if (!v)
            return PT_ENOMEM;
        pa->v = v;
        pa->cap = cap;
    }
    if (pt__pk_get_u(r, &kind, 1, "a section's kind") < 0 ||
        pt__pk_get_u(r, &flags, 1, "a section's flags") < 0)
        return PT_EPARSE;
    if (kind > PT__K_UNATTR || flags > (r->version >= 4 ? 7u : r->version >= 2 ? 3u : 1u))
        return pt__pk_fault(r, "an unknown section kind or flag");
    if (pt__pk_get_u(r, &name_len, 4, "a title's length") < 0)
        return PT_EPARSE;
    if (name_len > r->n - r->at)
        return pt__pk_fault(r, "a title longer than the bytes left");
    if (memchr(r->p + r->at, '\0', (size_t)name_len))
        return pt__pk_fault(r, "a NUL byte inside a title");

    s = calloc(1, sizeof *s);
    if (!s || !(s->name = malloc((size_t)name_len + 1))) {
        free(s);
        return PT_ENOMEM;
    }
    memcpy(s->name, r->p + r->at, (size_t)name_len);
    s->name[name_len] = '\0';
    s->name_len = (size_t)name_len;
    s->key = s->name;
    r->at += (size_t)name_len;
    /* Linked in at once, so the tree is freed whole whatever fails next. */
    parent = pa->v[depth - 1];
    s->parent = parent;
    s->depth = (int)depth;
    s->kind = (int)kind;
    if (parent->last_child)
        parent->last_child->next = s;
    else
        parent->child = s;
    parent->last_child = s;
    pa->v[depth] = s;
    *top = (uint32_t)depth;

    if (pt__pk_get_u(r, &s->count, 8, "a section's count") < 0)
        return PT_EPARSE;
    for (int i = 0; i < PACK_NFIG; i++)
        if (pt__pk_get_f(r, &fig[i], "a section's figures") < 0)
            return PT_EPARSE;
    s->total_ns = fig[0];
    s->first_ns = fig[1];
    s->last_ns = fig[2];
    s->mean_ns = fig[3];
    s->m2_ns = fig[4];
    s->min_ns = fig[5];
    s->max_ns = fig[6];
    s->read = fig[7];
    s->written = fig[8];
    s->flops = fig[9];
    memcpy(s->xfer, fig + 10, sizeof s->xfer);
    s->mem_hwm = fig[13];
    s->ran_here = (flags & 2) != 0;
    if (r->version >= 2 && (pt__pk_get_u(r, &s->cpu_timed, 8, "a section's figures") < 0 ||
                            pt__pk_get_f(r, &s->ovh_ns, "a section's figures") < 0))
        return PT_EPARSE;
    if (consistent(r, s) < 0)
        return PT_EPARSE;
    if (flags & 1) {
        rc = get_phase(r, s);
        if (rc < 0)
            return rc;
    }
    return flags & 4 ? pt__pack_get_shape(r, s) : 0;
}

/* The bytes as a tree under root; 0, PT_EPARSE (r->why says what) or PT_ENOMEM. */
static int read_tree(pt__rbuf *r, pt_section *root)
{
    path pa;
    uint64_t version, n;
    uint32_t top = 0;
    int rc = 0;

    if (r->n < sizeof magic || memcmp(r->p, magic, sizeof magic) != 0)
        return pt__pk_fault(r, "no \"PTPK\" at its start (not a packed tree)");
    r->at = sizeof magic;
    if (pt__pk_get_u(r, &version, 4, "the header") < 0 || pt__pk_get_u(r, &n, 8, "the header") < 0)
        return PT_EPARSE;
    if (version < 1 || version > PACK_VERSION)
        return pt__pk_fault(r, "a format version this build does not read");
    r->version = version;
    /* Every section takes more than 8 bytes: a count beyond that cannot be right. */
    if (n > (r->n - r->at) / 8)
        return pt__pk_fault(r, "more sections than bytes left");
    pa.cap = 64;
    pa.v = malloc(pa.cap * sizeof *pa.v);
    if (!pa.v)
        return PT_ENOMEM;
    pa.v[0] = root;
    for (uint64_t i = 0; i < n && rc == 0; i++)
        rc = get_section(r, &pa, &top);
    free(pa.v);
    if (rc == 0 && r->at != r->n)
        rc = pt__pk_fault(r, "bytes after the last section");
    return rc;
}

/* pt_unpack_merge(), and with rank >= 0 each rank's totals kept (ranks.c). */
static int unpack(pt_timing *t, const void *buf, size_t len, int rank, const char *fn)
{
    pt__rbuf r = { .p = buf, .n = len };
    pt_section root;
    int rc;

    memset(&root, 0, sizeof root);
    /* Every thread's tree holds still while the run is merged in (gate.h). */
    pt__read_begin(t);
    rc = read_tree(&r, &root);
    if (rc == PT_EPARSE)
        pt__fail(t, rc, "%s: %zu bytes, at byte %zu: %s%s; nothing merged", fn, len, r.why_at,
                 r.cut ? "the bytes end inside " : "", r.why ? r.why : "malformed");
    else if (rc == PT_ENOMEM)
        pt__fail(t, rc, "%s: out of memory reading %zu bytes; nothing merged", fn, len);
    else if (rank >= 0 && (rc = pt__ranks_begin(t)) < 0)
        pt__fail(t, rc, "%s: out of memory keeping the ranks' totals; nothing merged", fn);
    else if ((rc = pt__merge_tree(t, &t->root, &root)) < 0)
        pt__fail(t, rc, "%s: out of memory merging; the tree holds part of it", fn);
    else if ((rc = pt__merge_aside(&t->merged_root, &root)) < 0)
        pt__fail(t, rc, "%s: out of memory keeping the merged run apart; the creating "
                 "thread's part (pt_thread_part_get) holds some of it", fn);
    else if (rank >= 0 && (rc = pt__ranks_add(t, &root, rank)) < 0)
        pt__fail(t, rc, "%s: out of memory keeping rank %d's totals; its spread is missing "
                 "some", fn, rank);
    else if (rank >= 0 && (rc = pt__ranks_note(t, rank)) < 0)
        pt__fail(t, rc, "%s: out of memory keeping the ranks merged; rank %d merged", fn, rank);
    pt__section_free_children(&root);
    pt__read_end(t);
    return rc;
}

int pt_unpack_merge(pt_timing *t, const void *buf, size_t len)
{
    if (!t || pt__refused_in_callback(t, PT__CB_LINE, "pt_unpack_merge"))
        return t ? PT_ESTATE : 0;
    if (!buf)
        return pt__fail(t, PT_EINVAL, "pt_unpack_merge: NULL buf");
    return unpack(t, buf, len, -1, "pt_unpack_merge");
}

int pt_unpack_merge_rank(pt_timing *t, const void *buf, size_t len, int rank)
{
    int rc;

    if (!t)
        return 0;
    if (pt__refused_in_callback(t, PT__CB_LINE, "pt_unpack_merge_rank"))
        return PT_ESTATE;
    if (rank < 0 || (!buf && len))
        return pt__fail(t, PT_EINVAL, "pt_unpack_merge_rank: %s",
                        rank < 0 ? "negative rank" : "NULL buf with a length");
    if (rank == 0)
        return pt__fail(t, PT_EINVAL, "pt_unpack_merge_rank: rank 0 is t's own sections "
                        "(the ranks merged into it are 1 and up); nothing merged");
    if (pt__ranks_seen(t, rank))
        return pt__fail(t, PT_EINVAL, "pt_unpack_merge_rank: rank %d was merged into this "
                        "timing already; nothing merged", rank);
    if (!buf) {
        /* A rank that took part with nothing to send. */
        pt__read_begin(t);
        if ((rc = pt__ranks_begin(t)) < 0) {
            pt__read_end(t);
            return pt__fail(t, rc, "pt_unpack_merge_rank: out of memory keeping the ranks' totals");
        }
        t->ranks++;
        t->ranks_empty++;
        rc = pt__ranks_note(t, rank);
        pt__read_end(t);
        return rc < 0 ? pt__fail(t, rc, "pt_unpack_merge_rank: out of memory keeping the "
                                 "ranks merged; rank %d counted", rank) : 0;
    }
    return unpack(t, buf, len, rank, "pt_unpack_merge_rank");
}
