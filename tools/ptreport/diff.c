/* ptreport diff: two runs compared section by section (by path).
 *
 * The figure judged is the time per call: the mean of the later
 * occurrences (mean_ms) when a section ran at least twice, else its only
 * occurrence (first_ms). The first call is left out where possible since
 * it carries warm-up (allocation, JIT, caches) the later ones do not.
 *
 * A section regressed when both hold:
 *   - the change exceeds the threshold: (new - base) / base > T (5% by default);
 *   - the change exceeds the runs' own noise: new - base > 2 * sqrt(sd_b^2 / n_b +
 *     sd_n^2 / n_n), with sd the standard deviation of the later occurrences and n
 *     their number (count - 1), i.e. about two standard errors of the difference
 *     of the means. This applies only when both sides have n >= 2 (a standard
 *     deviation exists); otherwise the threshold alone decides.
 * An improvement is the same with the signs turned. A section whose base
 * time is 0 cannot be judged relatively and is shown but never a
 * regression. A section either run marks too short to time ([short]: a
 * typical call under 10x ptkit's own cost) is shown but never judged:
 * its change is ptkit's noise, not the program's. Totals are shown beside
 * the means, not judged: they move with the number of calls, which a
 * changed workload changes on purpose. Times are written as the reports
 * write them, so a change below a microsecond still shows. */
#include "ptreport.h"

#include "api/tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Sections are paired by path without building paths: the new run's
 * sibling lists are sorted by title (in place; it is read for this
 * alone), then a walk of the base finds each section's counterpart among
 * the children of its parent's counterpart by a binary search. So the
 * pairing is O(n log n) in the sections and linear in the depth, where
 * comparing whole paths was O(n * depth) in time and memory (a chain
 * 40,000 deep took 3.7 GB). Paths are shown cut as the CSV cuts them:
 * the first title, "…" and the last six, so a row's size does not grow
 * with its depth either. */

static int by_name(const void *a, const void *b)
{
    return strcmp(((const pr_sec *)a)->name, ((const pr_sec *)b)->name);
}

/* Every sibling list of the run sorted by title, without recursion. */
static int sort_siblings(pr_sec *top, size_t n)
{
    size_t cap = 16, sp = 0;
    struct { pr_sec *v; size_t n; } *st = malloc(cap * sizeof *st);

    if (!st)
        return -1;
    st[sp].v = top;
    st[sp++].n = n;
    while (sp > 0) {
        pr_sec *v = st[--sp].v;
        size_t k = st[sp].n;
        if (k > 1)
            qsort(v, k, sizeof *v, by_name);
        for (size_t i = 0; i < k; i++) {
            if (!v[i].nkids)
                continue;
            if (sp == cap) {
                void *more = realloc(st, cap * 2 * sizeof *st);
                if (!more) {
                    free(st);
                    return -1;
                }
                st = more;
                cap *= 2;
            }
            st[sp].v = v[i].kids;
            st[sp++].n = v[i].nkids;
        }
    }
    free(st);
    return 0;
}

/* The titles of the walk's current section's ancestors, by depth. */
typedef struct anc {
    const char **name;
    size_t cap;
} anc;

/* A growing string; NULL text once memory ran out. */
typedef struct str {
    char *p;
    size_t len, cap;
} str;

static void put(str *b, const char *s, size_t n)
{
    if (!b->p)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            free(b->p);
            b->p = NULL;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* s's path at depth as pt_section_path() writes it ('/' and '\' in
 * titles escaped), cut past PT__CSV_PATH_WHOLE titles as the CSV cuts
 * it; malloc'ed, NULL without memory. O(1) in the depth. */
static char *cut_path(anc *a, const pr_sec *s, int depth)
{
    size_t d = (size_t)depth;
    const char **name = pt__depth_grow(a->name, &a->cap, d, sizeof *name);
    str b = { malloc(64), 0, 64 };

    if (!name) {
        free(b.p);
        return NULL;
    }
    a->name = name;
    a->name[d] = s->name;
    for (size_t i = 1; i <= d; i++) {
        if (d > PT__CSV_PATH_WHOLE && i == 2) {
            put(&b, "/\xE2\x80\xA6", 4); /* U+2026 HORIZONTAL ELLIPSIS */
            i = d - PT__CSV_PATH_LAST;
            continue;
        }
        if (i > 1)
            put(&b, "/", 1);
        for (const char *c = a->name[i]; *c; c++) {
            if (*c == '/' || *c == '\\')
                put(&b, "\\", 1);
            put(&b, c, 1);
        }
    }
    return b.p;
}

enum { V_OK, V_REGRESSED, V_IMPROVED, V_NOISE, V_UNJUDGED, V_SHORT };
static const char *const verdict_name[] = { "ok", "REGRESSED", "improved", "within noise",
                                            "not judged (base 0)",
                                            "not judged ([short]: too short to time)" };

typedef struct cmp {
    const pr_sec *a, *b;      /* b NULL: only in the base */
    char *path;               /* cut (cut_path) */
    double ma, mb, rel, noise, ta, tb;
    int verdict;
} cmp;

static double per_call(const pr_sec *s)
{
    return s->st.count >= 2 ? s->st.mean_ms : s->st.first_ms;
}

static void judge(cmp *c, double thr)
{
    uint64_t na = c->a->st.count > 1 ? c->a->st.count - 1 : 0;
    uint64_t nb = c->b->st.count > 1 ? c->b->st.count - 1 : 0;
    double d, sa = c->a->st.stddev_ms, sb = c->b->st.stddev_ms;

    c->ma = per_call(c->a);
    c->mb = per_call(c->b);
    c->ta = c->a->st.total_ms;
    c->tb = c->b->st.total_ms;
    d = c->mb - c->ma;
    c->noise = 0;
    if (na >= 2 && nb >= 2 && isfinite(sa) && isfinite(sb))
        c->noise = 2 * sqrt(sa * sa / (double)na + sb * sb / (double)nb);
    if (!(c->ma > 0) || !isfinite(c->mb)) {
        c->rel = NAN;
        c->verdict = V_UNJUDGED;
        return;
    }
    c->rel = d / c->ma;
    if (c->a->st.too_short || c->b->st.too_short) {
        c->verdict = V_SHORT;
        return;
    }
    if (c->rel > thr)
        c->verdict = d > c->noise ? V_REGRESSED : V_NOISE;
    else if (c->rel < -thr)
        c->verdict = -d > c->noise ? V_IMPROVED : V_NOISE;
    else
        c->verdict = V_OK;
}

static void pct(char *b, size_t n, double rel)
{
    if (isfinite(rel))
        snprintf(b, n, "%+.1f%%", 100 * rel);
    else
        snprintf(b, n, "-");
}

static cmp *grow_cmp(cmp *v, size_t *cap)
{
    size_t n = *cap ? *cap * 2 : 64;
    cmp *p = realloc(v, n * sizeof *p);
    if (p)
        *cap = n;
    return p; /* NULL: v is as it was */
}

static void print_row(const cmp *c, int w)
{
    char r1[32], r2[32], ma[PT__CELL], mb[PT__CELL], no[PT__CELL], ta[PT__CELL], tb[PT__CELL];
    pct(r1, sizeof r1, c->rel);
    pct(r2, sizeof r2, c->ta > 0 ? (c->tb - c->ta) / c->ta : NAN);
    pt__fmt_ms(ma, c->ma);
    pt__fmt_ms(mb, c->mb);
    pt__fmt_ms(no, c->noise);
    pt__fmt_ms(ta, c->ta);
    pt__fmt_ms(tb, c->tb);
    printf("  %-*s  %12s  %12s  %8s  %10s  %13s  %13s  %8s  %s\n", w, c->path, ma, mb, r1, no,
           ta, tb, r2, verdict_name[c->verdict]);
}

static const char diff_usage[] = "usage: ptreport diff BASE.json NEW.json [--threshold 5%]\n";

int pr_diff(int argc, char **argv)
{
    const char *files[2] = { NULL, NULL };
    double thr = 0.05;
    char err[1024];
    pr_run run[2];
    pr_walk w = { 0 };
    const pr_sec *x;
    pr_sec **cp = NULL;       /* the counterparts of the walk's ancestors, by depth */
    anc na = { NULL, 0 };
    cmp *cs = NULL;
    size_t nc = 0, cscap = 0, cpcap = 0, nreg = 0, only_a = 0, only_b = 0;
    int wcol = (int)strlen("Section"), rc = 0, depth;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--threshold") == 0 && i + 1 < argc) {
            char *end;
            double t = strtod(argv[++i], &end);
            if (end == argv[i] || (*end && strcmp(end, "%") != 0) || !(t >= 0) || !isfinite(t))
                return pr_fail("diff: --threshold wants a percentage >= 0 such as 5%%, not '%s'",
                               argv[i]);
            thr = t / 100;
        } else if (a[0] == '-' && a[1]) {
            return pr_fail("diff: unknown option or missing value: %s\n%s", a, diff_usage);
        } else if (!files[0]) {
            files[0] = a;
        } else if (!files[1]) {
            files[1] = a;
        } else {
            return pr_fail("diff: two runs, a base and a new one\n%s", diff_usage);
        }
    }
    if (!files[1])
        return pr_fail("diff: two runs needed, a base and a new one\n%s", diff_usage);
    if (pr_run_load(&run[0], files[0], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (pr_run_load(&run[1], files[1], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        pr_run_free(&run[0]);
        return 2;
    }
    if (sort_siblings(run[1].secs, run[1].nsecs) < 0) {
        rc = pr_fail("diff: out of memory");
        goto done;
    }
    /* In the base's tree order, so the table reads like the reports. */
    pr_walk_begin(&w, run[0].secs, run[0].nsecs);
    while ((x = pr_walk_next(&w, &depth)) != NULL) {
        const pr_sec *kids = depth == 1 ? run[1].secs : cp[depth - 1] ? cp[depth - 1]->kids : NULL;
        size_t nk = depth == 1 ? run[1].nsecs : cp[depth - 1] ? cp[depth - 1]->nkids : 0;
        pr_sec key;
        pr_sec *b;
        char *path;
        pr_sec **grown = pt__depth_grow(cp, &cpcap, (size_t)depth, sizeof *cp);
        cmp *more = nc < cscap ? cs : grow_cmp(cs, &cscap);
        if (grown)
            cp = grown;
        if (more)
            cs = more;
        if (!grown || !more) {
            rc = pr_fail("diff: out of memory");
            goto done;
        }
        key.name = x->name;
        b = nk ? bsearch(&key, kids, nk, sizeof *kids, by_name) : NULL;
        cp[depth] = b;
        if (!(path = cut_path(&na, x, depth))) {
            rc = pr_fail("diff: out of memory");
            goto done;
        }
        cs[nc].a = x;
        cs[nc].b = b;
        cs[nc].path = path;
        if (b) {
            b->matched = 1;
            judge(&cs[nc], thr);
            nreg += cs[nc].verdict == V_REGRESSED;
            if ((int)strlen(path) > wcol)
                wcol = (int)strlen(path);
        } else {
            only_a++;
        }
        nc++;
    }
    if (w.oom) {
        rc = pr_fail("diff: out of memory");
        goto done;
    }
    pr_walk_end(&w);
    pr_walk_begin(&w, run[1].secs, run[1].nsecs);
    while ((x = pr_walk_next(&w, &depth)) != NULL)
        only_b += !x->matched;
    pr_walk_end(&w);

    printf("ptreport diff: base %s, new %s; threshold %g%%; a regression also exceeds "
           "2*sqrt(sd_b^2/n_b + sd_n^2/n_n) when both sides have 2+ later calls\n",
           files[0], files[1], 100 * thr);
    if (nreg) {
        printf("%zu section%s regressed:\n", nreg, nreg == 1 ? "" : "s");
        for (size_t i = 0; i < nc; i++)
            if (cs[i].b && cs[i].verdict == V_REGRESSED) {
                char r[32], ma[PT__CELL], mb[PT__CELL], no[PT__CELL];
                pct(r, sizeof r, cs[i].rel);
                pt__fmt_ms(ma, cs[i].ma);
                pt__fmt_ms(mb, cs[i].mb);
                pt__fmt_ms(no, cs[i].noise);
                printf("  %s: %s -> %s ms per call (%s, noise %s ms)\n", cs[i].path, ma, mb, r,
                       no);
            }
    } else {
        printf("no regression\n");
    }
    printf("\n  %-*s  %12s  %12s  %8s  %10s  %13s  %13s  %8s  %s\n", wcol, "Section",
           "Base ms/call", "New ms/call", "Change", "Noise ms", "Base total ms", "New total ms",
           "Change", "Verdict");
    for (size_t i = 0; i < nc; i++)
        if (cs[i].b)
            print_row(&cs[i], wcol);
    if (only_a) {
        printf("\nonly in base (%zu):\n", only_a);
        for (size_t i = 0; i < nc; i++)
            if (!cs[i].b)
                printf("  %s  %.3f ms total\n", cs[i].path, cs[i].a->st.total_ms);
    }
    if (only_b) {
        printf("\nonly in new (%zu):\n", only_b);
        pr_walk_begin(&w, run[1].secs, run[1].nsecs);
        while ((x = pr_walk_next(&w, &depth)) != NULL) {
            char *path = cut_path(&na, x, depth);
            if (!x->matched)
                printf("  %s  %.3f ms total\n", path ? path : x->name, x->st.total_ms);
            free(path);
        }
    }
    rc = nreg ? 1 : 0;
    if (fflush(stdout) != 0)
        rc = pr_fail("diff: writing the report failed");
done:
    pr_walk_end(&w);
    for (size_t i = 0; i < nc; i++)
        free(cs[i].path);
    free(cs);
    free(cp);
    free(na.name);
    pr_run_free(&run[0]);
    pr_run_free(&run[1]);
    return rc;
}
