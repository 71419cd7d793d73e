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
 * Sections are matched by title under their parent, hashed, so a merge
 * is linear in the sections however wide or deep the runs are.
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

#include "api/tool.h"

#include <stdlib.h>
#include <string.h>

/* ---- across the inputs ------------------------------------------- */

typedef struct spread {
    double min, max, sum;
} spread;

/* The figures across the inputs of one pooled section, indexed by its
 * creation order in the pool's tree, which is unique there. */
typedef struct pooled {
    size_t inputs;
    uint64_t count;
    spread total, mean;
} pooled;

typedef struct merge {
    pooled *p;
    size_t np;
    char **files;
    int nfiles;
} merge;

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

static void spread_json(pt__json *w, const char *key, const spread *s, size_t k)
{
    pt__json_key(w, key);
    pt__json_open_inline(w, '{');
    pt__json_k_num(w, "min", s->min);
    pt__json_k_num(w, "max", s->max);
    pt__json_k_num(w, "mean", k ? s->sum / (double)k : 0);
    pt__json_close(w, '}');
}

/* The export's hook for each section: its "merged" object. */
static void section_more(void *ctx, pt__json *w, const pt_section *s)
{
    const merge *m = ctx;
    const pooled *p = s->order < m->np ? &m->p[s->order] : NULL;

    if (!p || !p->inputs)
        return;
    pt__json_key(w, "merged");
    pt__json_open_inline(w, '{');
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

/* After run (rebuilt as t) is pooled: each of its sections' figures as
 * the file wrote them go to its pooled section's spreads, and a section
 * open in the input is open in the pool. The file's sections and t's are
 * walked side by side (t was restored in the file's order), the pooled
 * counterpart of each found from its parent's by title, hashed: linear in
 * the sections, however deep. 0, or -1 without memory. */
static int across(merge *m, pt_timing *pool, pt_timing *t, const pr_run *run)
{
    const pt_section **cp = NULL, *s = t->root.child;
    size_t cap = 0, n = (size_t)pool->main.next_order;
    const pr_sec *x;
    pr_walk w;
    int depth, rc = 0;

    if (n > m->np) {
        pooled *v = realloc(m->p, n * sizeof *v);
        if (!v)
            return -1;
        memset(v + m->np, 0, (n - m->np) * sizeof *v);
        m->p = v;
        m->np = n;
    }
    pr_walk_begin(&w, run->secs, run->nsecs);
    for (; rc == 0 && s && (x = pr_walk_next(&w, &depth)); s = pt__tree_next(s, &t->root)) {
        pt_section *at;
        pooled *p;
        if ((size_t)depth >= cap) {
            size_t ncap = cap ? cap * 2 : 64;
            const pt_section **v = realloc(cp, ncap * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            cp = v;
            cap = ncap;
            cp[0] = &pool->root;
        }
        at = (pt_section *)pt__child_of(cp[depth - 1], s);
        cp[depth] = at;
        if (!at || at->order >= m->np)
            continue; /* not pooled: merging ran out of memory, said below */
        p = &m->p[at->order];
        spread_add(&p->total, x->st.total_ms, p->inputs);
        spread_add(&p->mean, x->st.mean_ms, p->inputs);
        p->count = x->st.count > (uint64_t)INT64_MAX - p->count ? (uint64_t)INT64_MAX
                                                                 : p->count + x->st.count;
        p->inputs++;
        if (s->open && pt__restore_open(pool, at) < 0)
            rc = -1;
    }
    if (w.oom)
        rc = -1;
    pr_walk_end(&w);
    free(cp);
    return rc;
}

/* A run pooled into pool by path. 0, or -1 without memory. */
static int pool_run(merge *m, pt_timing *pool, const pr_run *run)
{
    pt_timing *t = pt__restore_create(run->name);
    int rc = -1;

    if (t && pr_restore_sections(t, run) == 0 && pt__merge_tree(pool, &pool->root, &t->root) == 0)
        rc = across(m, pool, t, run);
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
    if (n == 0 || !outp || !*outp) {
        rc = pr_fail("merge: %s\n%s", n == 0 ? "no run given" : !outp ? "no -o given" : "an empty -o",
                     merge_usage);
        goto done;
    }
    if ((rc = pr_out_not_an_input("merge", outp, (const char *const *)m.files, n)) != 0)
        goto done;
    for (; loaded < n; loaded++) {
        if (pr_run_load(&runs[loaded], m.files[loaded], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            goto done;
        }
    }
    pool = pt__restore_create(runs[0].name);
    for (int i = 0; pool && i < n && rc == 0; i++)
        if (pool_run(&m, pool, &runs[i]) < 0)
            rc = -1;
    if (!pool || rc) {
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
        pr_out_abort(&o);
        rc = pr_fail("merge: out of memory");
        goto done;
    }
    rc = pr_out_commit(&o, outp);
done:
    pt_destroy(pool);
    for (int i = 0; i < loaded; i++)
        pr_run_free(&runs[i]);
    free(m.p);
    free(runs);
    free(m.files);
    return rc;
}
