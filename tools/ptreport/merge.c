/* ptreport merge: many runs (ranks, threads, repeats) as one.
 *
 * Each run is rebuilt as a timing (rebuild.c, the library's restore path)
 * and pooled into one timing by path with the library's own merge, the
 * one pt_unpack_merge() and the threads use: all occurrences of all inputs
 * taken as one sample, so the figures stay consistent with one another
 * and `show` reads the result as any run:
 *   - count, bytes, FLOPS, transfers, blocks and hits are summed, and so
 *     is the total; rates, self time and the percentages are computed
 *     again over the pooled tree;
 *   - the first occurrence is the first input's that has the section; the
 *     later occurrences of every input, and the first ones of the other
 *     inputs, make the pooled mean, deviation (combined exactly, pairwise),
 *     min and max;
 *   - per-block figures: blocks summed, the mean weighted by blocks, the
 *     extremes over all, the imbalance max / mean again; each SM's time
 *     in a phase summed; mem_high_water the largest of the inputs';
 *   - a section open in any input is open in the pool.
 * The pool is written by the library's JSON export, with, per section,
 * "merged": how many inputs have it, the count summed, and min / max /
 * mean across those inputs of total_ms and of mean_ms, as each input
 * wrote them; and for the run, "merged": the number of inputs and their
 * file names. Run-level counts (errors and their codes, dropped events)
 * are summed, GPU timing and fallback are either input's; the name,
 * clock, device clock and peaks are the first input's, and the roofline
 * figures are those peaks'. A pooled run has no threads of its own and
 * no tracked tensors: tensors of different processes do not add up to
 * one list. */
#include "ptreport.h"

#include "core/merge.h"
#include "core/restore.h"
#include "core/tree.h"
#include "report/export_json.h"

#include <stdlib.h>
#include <string.h>

/* ---- across the inputs ------------------------------------------- */

typedef struct spread {
    double min, max, sum;
} spread;

/* One section of one input, then (after sorting by path, inputs in
 * order) the figures across the inputs of each path. */
typedef struct across {
    const char *path;
    size_t input;
    uint64_t count;
    double total, mean;       /* total_ms and mean_ms as the input wrote them */
} across;

typedef struct pooled {
    const char *path;
    size_t inputs;
    uint64_t count;
    spread total, mean;
} pooled;

typedef struct merge {
    across *v;
    size_t n, cap;
    pooled *p;
    size_t np;
    char **files;
    int nfiles;
} merge;

static int collect(merge *m, const pr_sec *v, size_t n, size_t input)
{
    for (size_t i = 0; i < n; i++) {
        if (m->n == m->cap) {
            size_t cap = m->cap ? m->cap * 2 : 64;
            across *a = realloc(m->v, cap * sizeof *a);
            if (!a)
                return -1;
            m->v = a;
            m->cap = cap;
        }
        m->v[m->n++] = (across){ v[i].path, input, v[i].st.count, v[i].st.total_ms,
                                 v[i].st.mean_ms };
        if (collect(m, v[i].kids, v[i].nkids, input) < 0)
            return -1;
    }
    return 0;
}

static int by_path_then_input(const void *a, const void *b)
{
    const across *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    if (c)
        return c;
    return x->input < y->input ? -1 : x->input > y->input;
}

static void spread_add(spread *s, double v, size_t seen)
{
    if (seen == 0) {
        s->min = s->max = v;
    } else {
        s->min = v < s->min ? v : s->min;
        s->max = v > s->max ? v : s->max;
    }
    s->sum += v;
}

/* The figures across the inputs, one entry per path, sorted by path. */
static int pool_across(merge *m)
{
    if (m->n)
        qsort(m->v, m->n, sizeof *m->v, by_path_then_input);
    m->p = calloc(m->n ? m->n : 1, sizeof *m->p);
    if (!m->p)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        pooled *p = &m->p[m->np];
        if (m->np == 0 || strcmp(m->p[m->np - 1].path, m->v[i].path) != 0) {
            p = &m->p[m->np++];
            p->path = m->v[i].path;
        } else {
            p = &m->p[m->np - 1];
        }
        spread_add(&p->total, m->v[i].total, p->inputs);
        spread_add(&p->mean, m->v[i].mean, p->inputs);
        p->count += m->v[i].count;
        p->inputs++;
    }
    return 0;
}

static void spread_json(pt__json *w, const char *key, const spread *s, size_t k)
{
    pt__json_key(w, key);
    pt__json_open(w, '{');
    pt__json_k_num(w, "min", s->min);
    pt__json_k_num(w, "max", s->max);
    pt__json_k_num(w, "mean", k ? s->sum / (double)k : 0);
    pt__json_close(w, '}');
}

static int by_path(const void *key, const void *e)
{
    return strcmp(key, ((const pooled *)e)->path);
}

/* The export's hook for each section: its "merged" object. */
static void section_more(void *ctx, pt__json *w, const pt_section *s, const char *path)
{
    const merge *m = ctx;
    const pooled *p = bsearch(path, m->p, m->np, sizeof *m->p, by_path);

    (void)s;
    if (!p)
        return;
    pt__json_key(w, "merged");
    pt__json_open(w, '{');
    pt__json_k_u64(w, "inputs", p->inputs);
    pt__json_k_u64(w, "count", p->count);
    spread_json(w, "total_ms", &p->total, p->inputs);
    spread_json(w, "mean_ms", &p->mean, p->inputs);
    pt__json_close(w, '}');
}

/* The export's hook for the run: its "merged" object. */
static void document_more(void *ctx, pt__json *w)
{
    const merge *m = ctx;

    pt__json_key(w, "merged");
    pt__json_open(w, '{');
    pt__json_k_i64(w, "inputs", m->nfiles);
    pt__json_key(w, "files");
    pt__json_open(w, '[');
    for (int i = 0; i < m->nfiles; i++) {
        pt__json_item(w);
        pt__json_str(w, m->files[i]);
    }
    pt__json_close(w, ']');
    pt__json_close(w, '}');
}

/* ---- the pool ---------------------------------------------------- */

/* Marks open in the pool every section open in the input. */
static int mark_open(pt_timing *pool, const pt_section *s)
{
    for (const pt_section *c = s->child; c; c = c->next) {
        if (c->open) {
            pt_section *at = (pt_section *)pt__counterpart(&pool->root, c);
            if (at && pt__restore_open(pool, at) < 0)
                return -1;
        }
        if (mark_open(pool, c) < 0)
            return -1;
    }
    return 0;
}

/* A run pooled into pool by path. 0, or -1 without memory. */
static int pool_run(pt_timing *pool, const pr_run *run)
{
    pt_timing *t = pt__restore_create(run->name);
    int rc = -1;

    if (t && pr_restore_sections(t, run) == 0 && pt__merge_tree(pool, &pool->root, &t->root) == 0)
        rc = mark_open(pool, &t->root);
    pt_destroy(t);
    return rc;
}

/* The run-level state: the first input's, counts summed over all. */
static int pool_state(pt_timing *pool, const pr_run *runs, int n)
{
    uint64_t by_code[-PT__ERR_LAST], codes[-PT__ERR_LAST];
    pt__restored_run rr, one;
    pt_dev_clock dc, dc_one;

    pr_run_state(&runs[0], &rr, &dc, by_code);
    for (int i = 1; i < n; i++) {
        pr_run_state(&runs[i], &one, &dc_one, codes);
        rr.errors += one.errors;
        for (int k = 1; k < -PT__ERR_LAST; k++)
            by_code[k] += codes[k];
        if (one.last_error && *one.last_error)
            rr.last_error = one.last_error;
        rr.gpu_timing |= one.gpu_timing;
        rr.gpu_fallback |= one.gpu_fallback;
        if (!rr.gpu_fallback_why || !*rr.gpu_fallback_why)
            rr.gpu_fallback_why = one.gpu_fallback_why;
        rr.notes += one.notes;
        rr.dropped += one.dropped;
    }
    rr.section_count = pool->main.nsections;
    return pt__restore_run(pool, &rr) == 0 ? 0 : -1;
}

static const char merge_usage[] = "usage: ptreport merge A.json B.json ... -o ALL.json\n";

int pr_merge(int argc, char **argv)
{
    const char *outp = NULL;
    char err[1024];
    merge m = { 0 };
    pr_run *runs;
    pt_timing *pool = NULL;
    pt__json_more more = { section_more, document_more, &m, 1 };
    pt__afile o;
    int n = 0, rc = 0, loaded = 0;

    m.files = calloc((size_t)argc + 1, sizeof *m.files);
    runs = calloc((size_t)argc + 1, sizeof *runs);
    if (!m.files || !runs) {
        rc = pr_fail("merge: out of memory");
        goto done;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outp = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = pr_fail("merge: unknown option or missing value: %s\n%s", argv[i], merge_usage);
            goto done;
        } else {
            m.files[n++] = argv[i];
        }
    }
    m.nfiles = n;
    if (n == 0 || !outp) {
        rc = pr_fail("merge: %s\n%s", n == 0 ? "no run given" : "no -o given", merge_usage);
        goto done;
    }
    for (; loaded < n; loaded++) {
        if (pr_run_load(&runs[loaded], m.files[loaded], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            goto done;
        }
    }
    pool = pt__restore_create(runs[0].name);
    for (int i = 0; pool && i < n && rc == 0; i++)
        if (pool_run(pool, &runs[i]) < 0 || collect(&m, runs[i].secs, runs[i].nsecs, (size_t)i) < 0)
            rc = -1;
    if (!pool || rc || pool_across(&m) < 0) {
        rc = pr_fail("merge: out of memory");
        goto done;
    }
    if (pool_state(pool, runs, n) < 0) {
        rc = pr_fail("merge: %s: clock '%s' (at %g GHz) cannot be shown", runs[0].file,
                     runs[0].clock, runs[0].clock_ghz);
        goto done;
    }
    if (pr_out_open(&o, outp)) {
        rc = 2;
        goto done;
    }
    if (pt__json_export_write(pool, o.f, &more) < 0) {
        pt__afile_abort(&o);
        rc = pr_fail("merge: out of memory");
        goto done;
    }
    rc = pr_out_commit(&o, outp);
done:
    pt_destroy(pool);
    for (int i = 0; i < loaded; i++)
        pr_run_free(&runs[i]);
    free(m.v);
    free(m.p);
    free(runs);
    free(m.files);
    return rc;
}
