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
 * regression. Totals are shown beside the means, not judged: they move
 * with the number of calls, which a changed workload changes on purpose. */
#include "ptreport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One section with its path, the key sections are paired by. */
typedef struct entry {
    const pr_sec *s;
    char *path;
} entry;

typedef struct flat {
    entry *v;
    size_t n, cap;
    int oom;
} flat;

/* Every section depth first, without recursion, with its path. */
static void flatten(flat *f, const pr_run *r)
{
    const pr_sec *x;
    pr_walk w;
    int depth;

    pr_walk_begin(&w, r->secs, r->nsecs);
    while (!f->oom && (x = pr_walk_next(&w, &depth))) {
        const char *path = pr_walk_path(&w, x, depth);
        if (f->n == f->cap) {
            size_t cap = f->cap ? f->cap * 2 : 64;
            entry *p = realloc(f->v, cap * sizeof *p);
            if (!p) {
                f->oom = 1;
                break;
            }
            f->v = p;
            f->cap = cap;
        }
        f->v[f->n].s = x;
        f->v[f->n].path = path ? strdup(path) : NULL;
        if (!f->v[f->n++].path)
            f->oom = 1;
    }
    f->oom |= w.oom;
    pr_walk_end(&w);
}

static void flat_free(flat *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i].path);
    free(f->v);
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

static const entry *find(const entry *sorted, size_t n, const char *path)
{
    entry key = { NULL, (char *)path };
    return bsearch(&key, sorted, n, sizeof *sorted, by_path);
}

enum { V_OK, V_REGRESSED, V_IMPROVED, V_NOISE, V_UNJUDGED };
static const char *const verdict_name[] = { "ok", "REGRESSED", "improved", "within noise",
                                            "not judged (base 0)" };

typedef struct cmp {
    const pr_sec *a, *b;
    const char *path;
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

static void print_row(const cmp *c, int w)
{
    char r1[32], r2[32];
    pct(r1, sizeof r1, c->rel);
    pct(r2, sizeof r2, c->ta > 0 ? (c->tb - c->ta) / c->ta : NAN);
    printf("  %-*s  %12.3f  %12.3f  %8s  %10.3f  %13.3f  %13.3f  %8s  %s\n", w, c->path, c->ma,
           c->mb, r1, c->noise, c->ta, c->tb, r2, verdict_name[c->verdict]);
}

static const char diff_usage[] = "usage: ptreport diff BASE.json NEW.json [--threshold 5%]\n";

int pr_diff(int argc, char **argv)
{
    const char *files[2] = { NULL, NULL };
    double thr = 0.05;
    char err[1024];
    pr_run run[2];
    flat fa = { 0 }, fb = { 0 };
    entry *sorted_a = NULL, *sorted_b = NULL;
    cmp *cs = NULL;
    size_t nc = 0, nreg = 0, only_a = 0, only_b = 0;
    int w = (int)strlen("Section"), rc = 0;

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
    flatten(&fa, &run[0]);
    flatten(&fb, &run[1]);
    sorted_a = malloc((fa.n + 1) * sizeof *sorted_a);
    sorted_b = malloc((fb.n + 1) * sizeof *sorted_b);
    cs = malloc((fa.n + 1) * sizeof *cs);
    if (fa.oom || fb.oom || !sorted_a || !sorted_b || !cs) {
        rc = pr_fail("diff: out of memory");
        goto done;
    }
    memcpy(sorted_a, fa.v, fa.n * sizeof *sorted_a);
    memcpy(sorted_b, fb.v, fb.n * sizeof *sorted_b);
    qsort(sorted_a, fa.n, sizeof *sorted_a, by_path);
    qsort(sorted_b, fb.n, sizeof *sorted_b, by_path);

    /* In the base's tree order, so the table reads like the reports. */
    for (size_t i = 0; i < fa.n; i++) {
        const entry *b = find(sorted_b, fb.n, fa.v[i].path);
        if (!b) {
            only_a++;
            continue;
        }
        cs[nc].a = fa.v[i].s;
        cs[nc].b = b->s;
        cs[nc].path = fa.v[i].path;
        judge(&cs[nc], thr);
        nreg += cs[nc].verdict == V_REGRESSED;
        if ((int)strlen(fa.v[i].path) > w)
            w = (int)strlen(fa.v[i].path);
        nc++;
    }
    for (size_t i = 0; i < fb.n; i++)
        only_b += find(sorted_a, fa.n, fb.v[i].path) == NULL;

    printf("ptreport diff: base %s, new %s; threshold %g%%; a regression also exceeds "
           "2*sqrt(sd_b^2/n_b + sd_n^2/n_n) when both sides have 2+ later calls\n",
           files[0], files[1], 100 * thr);
    if (nreg) {
        printf("%zu section%s regressed:\n", nreg, nreg == 1 ? "" : "s");
        for (size_t i = 0; i < nc; i++)
            if (cs[i].verdict == V_REGRESSED) {
                char r[32];
                pct(r, sizeof r, cs[i].rel);
                printf("  %s: %.3f -> %.3f ms per call (%s, noise %.3f ms)\n", cs[i].path,
                       cs[i].ma, cs[i].mb, r, cs[i].noise);
            }
    } else {
        printf("no regression\n");
    }
    printf("\n  %-*s  %12s  %12s  %8s  %10s  %13s  %13s  %8s  %s\n", w, "Section",
           "Base ms/call", "New ms/call", "Change", "Noise ms", "Base total ms", "New total ms",
           "Change", "Verdict");
    for (size_t i = 0; i < nc; i++)
        print_row(&cs[i], w);
    if (only_a) {
        printf("\nonly in base (%zu):\n", only_a);
        for (size_t i = 0; i < fa.n; i++)
            if (!find(sorted_b, fb.n, fa.v[i].path))
                printf("  %s  %.3f ms total\n", fa.v[i].path, fa.v[i].s->st.total_ms);
    }
    if (only_b) {
        printf("\nonly in new (%zu):\n", only_b);
        for (size_t i = 0; i < fb.n; i++)
            if (!find(sorted_a, fa.n, fb.v[i].path))
                printf("  %s  %.3f ms total\n", fb.v[i].path, fb.v[i].s->st.total_ms);
    }
    rc = nreg ? 1 : 0;
    if (fflush(stdout) != 0)
        rc = pr_fail("diff: writing the report failed");
done:
    free(cs);
    free(sorted_a);
    free(sorted_b);
    flat_free(&fa);
    flat_free(&fb);
    pr_run_free(&run[0]);
    pr_run_free(&run[1]);
    return rc;
}
