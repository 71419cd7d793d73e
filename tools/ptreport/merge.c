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
 * one list.
 *
 * The inputs are read one at a time, each pooled and let go before the
 * next is read, so memory is the pool plus the first input (whose name,
 * clock and device clock the pool keeps) plus the one being read, however
 * many there are. One file given twice (by any name: the same device and
 * inode), or a merged file given beside one of the inputs it lists, would
 * count the same occurrences twice: refused, naming both. */
#include "ptreport.h"

#include "api/tool.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The run-level state: the first input's, counts summed over all, added
 * one input at a time. The strings kept are copies: the input they came
 * from is let go. */
typedef struct state {
    pt__restored_run rr;
    pt_dev_clock dc;
    uint64_t by_code[-PT__ERR_LAST];
    char *last_error, *fallback_why;
} state;

static int keep_str(char **dst, const char *s)
{
    char *c;
    if (!s || !*s)
        return 0;
    c = strdup(s);
    if (!c)
        return -1;
    free(*dst);
    *dst = c;
    return 0;
}

static int state_add(state *st, const pr_run *run, int first)
{
    uint64_t codes[-PT__ERR_LAST];
    pt__restored_run one;
    pt_dev_clock dc_one;

    if (first) {
        pr_run_state(run, &st->rr, &st->dc, st->by_code);
        one = st->rr;
    } else {
        pr_run_state(run, &one, &dc_one, codes);
        st->rr.errors += one.errors;
        for (int k = 1; k < -PT__ERR_LAST; k++)
            st->by_code[k] += codes[k];
        st->rr.gpu_timing |= one.gpu_timing;
        st->rr.gpu_fallback |= one.gpu_fallback;
        st->rr.notes += one.notes;
        st->rr.dropped += one.dropped;
    }
    if (keep_str(&st->last_error, one.last_error) ||
        (!st->fallback_why && keep_str(&st->fallback_why, one.gpu_fallback_why)))
        return -1;
    return 0;
}

static int pool_state(pt_timing *pool, state *st)
{
    st->rr.last_error = st->last_error;
    st->rr.gpu_fallback_why = st->fallback_why;
    st->rr.section_count = pool->main.nsections;
    return pt__restore_run(pool, &st->rr) == 0 ? 0 : -1;
}

/* Where one input lies, to find a file given twice by any name. */
typedef struct ident {
    dev_t dev;
    ino_t ino;
    int at;                   /* its index among the inputs */
} ident;

static int by_ident(const void *pa, const void *pb)
{
    const ident *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino)
        return a->ino < b->ino ? -1 : 1;
    return a->at - b->at;
}

/* 2, said, when two inputs are one file; else 0 (one that cannot be
 * stat'ed is left to the reader, which says why). O(n log n). */
static int refuse_twice(char **files, int n, ident *id, int *nid)
{
    struct stat sb;
    *nid = 0;
    for (int i = 0; i < n; i++)
        if (stat(files[i], &sb) == 0)
            id[(*nid)++] = (ident){ sb.st_dev, sb.st_ino, i };
    qsort(id, (size_t)*nid, sizeof *id, by_ident);
    for (int i = 1; i < *nid; i++)
        if (id[i].dev == id[i - 1].dev && id[i].ino == id[i - 1].ino)
            return pr_fail("merge: %s and %s are one file: its runs would count twice",
                           files[id[i - 1].at], files[id[i].at]);
    return 0;
}

/* 2, said, when run (input `at`) is a merge whose listed inputs include
 * another input of this merge (found by device and inode, the listed
 * name taken from here or beside the merged file); else 0. */
static int refuse_listed(const pr_run *run, char **files, const ident *id, int nid, int at)
{
    json_t *list = run->merged ? json_object_get(run->merged, "files") : NULL, *v;
    char *copy = strdup(run->file), *dir = copy ? dirname(copy) : ".", path[4096];
    size_t i;
    int rc = 0;

    json_array_foreach(list, i, v) {
        const char *name = json_string_value(v);
        for (int k = 0; name && k < 2 && rc == 0; k++) {
            struct stat sb;
            if (k == 1 && name[0] != '/')
                snprintf(path, sizeof path, "%s/%s", dir, name);
            else
                snprintf(path, sizeof path, "%s", name);
            if (stat(path, &sb) != 0)
                continue;
            ident key = { sb.st_dev, sb.st_ino, -1 };
            for (int j = 0; j < nid && rc == 0; j++)
                if (id[j].dev == key.dev && id[j].ino == key.ino && id[j].at != at)
                    rc = pr_fail("merge: %s already holds %s (one of the runs it merged): "
                                 "its runs would count twice", files[at], files[id[j].at]);
        }
        if (rc)
            break;
    }
    free(copy);
    return rc;
}

static const char merge_usage[] = "usage: ptreport merge A.json B.json ... -o ALL.json\n";

int pr_merge(int argc, char **argv)
{
    const char *outp = NULL;
    char err[1024];
    merge m = { 0 };
    pr_run first = { 0 }, cur = { 0 };
    pt_timing *pool = NULL;
    pt__json_more more = { section_more, document_more, &m, 1 };
    pt__afile o;
    state st = { 0 };
    ident *id;
    int n = 0, rc = 0, nid = 0;

    m.files = calloc((size_t)argc + 1, sizeof *m.files);
    id = calloc((size_t)argc + 1, sizeof *id);
    if (!m.files || !id) {
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
    if ((rc = pr_out_not_an_input("merge", outp, (const char *const *)m.files, n)) != 0 ||
        (rc = refuse_twice(m.files, n, id, &nid)) != 0)
        goto done;
    /* One input at a time: read, checked, pooled, let go (the first kept
     * for the run's name, clock and device clock). */
    for (int i = 0; i < n; i++) {
        pr_run *r = i == 0 ? &first : &cur;
        if (pr_run_load(r, m.files[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            goto done;
        }
        if ((rc = refuse_listed(r, m.files, id, nid, i)) != 0)
            goto done;
        if (i == 0 && !(pool = pt__restore_create(first.name))) {
            rc = pr_fail("merge: out of memory");
            goto done;
        }
        if (pool_run(&m, pool, r) < 0 || state_add(&st, r, i == 0) < 0) {
            rc = pr_fail("merge: out of memory");
            goto done;
        }
        if (i > 0)
            pr_run_free(&cur);
    }
    if (pool_state(pool, &st) < 0) {
        rc = pr_fail("merge: %s: clock '%s' (at %g GHz) cannot be shown", first.file,
                     first.clock, first.clock_ghz);
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
    pr_run_free(&first);
    pr_run_free(&cur);
    free(st.last_error);
    free(st.fallback_why);
    free(m.p);
    free(id);
    free(m.files);
    return rc;
}
