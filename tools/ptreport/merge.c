/* ptreport merge: many runs (ranks, threads, repeats) as one.
 *
 * Sections are matched by their path. Each merged section is the pooled
 * run: all occurrences of all inputs taken as one sample, so the schema-1
 * figures stay consistent with one another and `show` reads the result
 * as any run:
 *   - count, bytes, FLOPS, transfers, blocks and hits are summed, and so
 *     is total_ms; rates are recomputed over the summed time, self_ms and
 *     the percentages over the merged tree;
 *   - first_ms is the first occurrence of the first input that has the
 *     section; the later occurrences of every input, and the first ones
 *     of the other inputs, make the pooled mean_ms, stddev_ms (combined
 *     exactly from each input's count, mean and deviation), min_ms, max_ms;
 *   - per-block figures: blocks summed, the mean weighted by blocks, the
 *     extremes over all, imbalance max / mean again.
 * Beside them each section carries "merged": how many inputs have it, the
 * count summed, and min / max / mean across those inputs of total_ms and
 * of mean_ms, as each input wrote them. The run carries "merged" too: the
 * number of inputs and their file names. Run-level counts (errors, open
 * sections, dropped events) are summed; the name, clock, device clock
 * and peaks are the first input's, and the roofline figures are
 * recomputed against those peaks; mem_high_water is the largest of the
 * inputs'. The run-level "memory" object (tracked tensors) is left out:
 * tensors of different processes do not add up to one list. */
#include "ptreport.h"

#include <math.h>
#include <pt/pt_version.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct spread {
    double min, max, sum;
} spread;

typedef struct node node;
struct node {
    const char *name, *path, *kind; /* borrowed from the first input that has it */
    int depth, open;
    size_t inputs;
    uint64_t count, blocks;
    double total, first;
    double rest_n, rest_mean, rest_m2, rest_min, rest_max; /* the pooled later occurrences */
    double sums[NFIG];         /* figures that add up: bytes, FLOPS, transfers, hits */
    double block_sum, block_min, block_max, mem_high_water;
    spread in_total, in_mean;  /* across inputs */
    node **kids;
    size_t nkids, cap;
};

static node *node_new(void)
{
    return calloc(1, sizeof(node));
}

static void node_free(node *n)
{
    for (size_t i = 0; i < n->nkids; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n);
}

static node *child(node *p, const pr_sec *s)
{
    node *c;
    for (size_t i = 0; i < p->nkids; i++)
        if (strcmp(p->kids[i]->name, s->name) == 0)
            return p->kids[i];
    if (p->nkids == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        node **v = realloc(p->kids, cap * sizeof *v);
        if (!v)
            return NULL;
        p->kids = v;
        p->cap = cap;
    }
    c = node_new();
    if (!c)
        return NULL;
    c->name = s->name;
    c->path = s->path;
    c->kind = s->kind;
    c->depth = s->depth;
    p->kids[p->nkids++] = c;
    return c;
}

/* Chan et al.'s pairwise update: a group of n values with mean m and sum
 * of squared deviations m2 joins the pool, without the cancellation of
 * summing squares. */
static void pool(node *d, double n, double m, double m2, double lo, double hi)
{
    double tot, delta;
    if (!(n > 0))
        return;
    if (d->rest_n == 0) {
        d->rest_min = lo;
        d->rest_max = hi;
    } else {
        d->rest_min = lo < d->rest_min ? lo : d->rest_min;
        d->rest_max = hi > d->rest_max ? hi : d->rest_max;
    }
    tot = d->rest_n + n;
    delta = m - d->rest_mean;
    d->rest_mean += delta * n / tot;
    d->rest_m2 += m2 + delta * delta * d->rest_n * n / tot;
    d->rest_n = tot;
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

static int add_secs(node *parent, const pr_sec *v, size_t n)
{
    static const int summed[] = { F_READ, F_WRITTEN, F_FLOPS, F_H2D, F_D2H, F_D2D, F_HITS };

    for (size_t i = 0; i < n; i++) {
        const pr_sec *s = &v[i];
        const double *f = s->fig;
        node *d = child(parent, s);
        double later = s->count > 1 ? (double)(s->count - 1) : 0;

        if (!d)
            return -1;
        spread_add(&d->in_total, f[F_TOTAL], d->inputs);
        spread_add(&d->in_mean, f[F_MEAN], d->inputs);
        if (d->inputs == 0)
            d->first = f[F_FIRST];
        else if (s->count > 0)
            pool(d, 1, f[F_FIRST], 0, f[F_FIRST], f[F_FIRST]);
        if (later > 0) {
            double sd = later > 1 && isfinite(f[F_STDDEV]) ? f[F_STDDEV] : 0;
            pool(d, later, f[F_MEAN], sd * sd * (later - 1), f[F_MIN], f[F_MAX]);
        }
        d->inputs++;
        d->open |= s->open;
        if (f[F_MEM_HIGH_WATER] > d->mem_high_water)
            d->mem_high_water = f[F_MEM_HIGH_WATER];
        d->count += s->count;
        d->total += f[F_TOTAL];
        for (size_t k = 0; k < sizeof summed / sizeof summed[0]; k++)
            d->sums[summed[k]] += f[summed[k]];
        if (s->blocks) {
            d->block_min = d->blocks == 0 || f[F_BLOCK_MIN] < d->block_min ? f[F_BLOCK_MIN]
                                                                           : d->block_min;
            d->block_max = d->blocks == 0 || f[F_BLOCK_MAX] > d->block_max ? f[F_BLOCK_MAX]
                                                                           : d->block_max;
            d->block_sum += f[F_BLOCK_MEAN] * (double)s->blocks;
            d->blocks += s->blocks;
        }
        if (add_secs(d, s->kids, s->nkids))
            return -1;
    }
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

/* jansson has no token for NaN or infinity; the library writes null. */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static int set(json_t *o, const char *k, json_t *v)
{
    return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *spread_json(const spread *s, size_t k)
{
    json_t *o = json_object();
    if (!o || set(o, "min", jnum(s->min)) || set(o, "max", jnum(s->max)) ||
        set(o, "mean", jnum(k ? s->sum / (double)k : 0))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static double rate(double amount, double total_ms)
{
    return total_ms > 0 ? amount / (total_ms * 1e6) : 0;
}

/* The peaks of the first input, which the roofline figures are recomputed against. */
static double peak_bw, peak_flops;

static json_t *sec_json(const node *d, double parent_total, double whole, size_t *nsec)
{
    const char *bound = "unknown";
    double bytes;
    json_t *o = json_object(), *kids = json_array(), *m = json_object();
    double fig[NFIG] = { 0 }, children = 0, mean = 0, sd = 0, lo = 0, hi = 0;

    (*nsec)++;
    for (size_t i = 0; i < d->nkids; i++)
        children += d->kids[i]->total;
    if (d->rest_n > 0) {
        mean = d->rest_mean;
        lo = d->rest_min;
        hi = d->rest_max;
    }
    if (d->rest_n > 1)
        sd = sqrt(d->rest_m2 > 0 ? d->rest_m2 / (d->rest_n - 1) : 0);
    memcpy(fig, d->sums, sizeof fig);
    fig[F_TOTAL] = d->total;
    fig[F_SELF] = d->total > children ? d->total - children : 0;
    fig[F_FIRST] = d->first;
    fig[F_MEAN] = mean;
    fig[F_STDDEV] = sd;
    fig[F_MIN] = lo;
    fig[F_MAX] = hi;
    fig[F_PPARENT] = parent_total > 0 ? 100.0 * d->total / parent_total : 0;
    fig[F_PTOTAL] = whole > 0 ? 100.0 * d->total / whole : 0;
    fig[F_READ_GBS] = rate(fig[F_READ], d->total);
    fig[F_WRITE_GBS] = rate(fig[F_WRITTEN], d->total);
    fig[F_GFLOPS] = rate(fig[F_FLOPS], d->total);
    for (int i = 0; i < 3; i++)
        fig[F_H2D_GBS + i] = rate(fig[F_H2D + i], d->total);
    /* The roofline as host/core/stats.c computes it, on the pooled figures. */
    bytes = fig[F_READ] + fig[F_WRITTEN];
    if (bytes > 0 && fig[F_FLOPS] > 0)
        fig[F_AI] = fig[F_FLOPS] / bytes;
    if (peak_bw > 0 && peak_flops > 0) {
        if (d->total > 0) {
            fig[F_PCT_PEAK_BW] = 100.0 * (bytes / (d->total * 1e-3)) / peak_bw;
            fig[F_PCT_PEAK_FLOPS] = 100.0 * (fig[F_FLOPS] / (d->total * 1e-3)) / peak_flops;
        }
        if (fig[F_AI] > 0)
            bound = fig[F_AI] < peak_flops / peak_bw ? "memory" : "compute";
    }
    fig[F_MEM_HIGH_WATER] = d->mem_high_water;
    if (d->blocks) {
        fig[F_BLOCK_MEAN] = d->block_sum / (double)d->blocks;
        fig[F_BLOCK_MIN] = d->block_min;
        fig[F_BLOCK_MAX] = d->block_max;
        fig[F_IMBALANCE] = fig[F_BLOCK_MEAN] > 0 ? d->block_max / fig[F_BLOCK_MEAN] : 0;
    }

    if (!o || !kids || !m)
        goto fail;
    if (set(o, "name", json_string(d->name)) || set(o, "path", json_string(d->path)) ||
        set(o, "depth", json_integer(d->depth)) || set(o, "kind", json_string(d->kind)) ||
        set(o, "open", json_boolean(d->open)) || set(o, "count", json_integer((json_int_t)d->count)))
        goto fail;
    for (int f = 0; f < NFIG; f++) {
        if (f == PR_FIGS_BEFORE_BLOCKS && set(o, "blocks", json_integer((json_int_t)d->blocks)))
            goto fail;
        if (f == PR_FIGS_BEFORE_BOUND && set(o, "bound", json_string(bound)))
            goto fail;
        if (set(o, pr_fig_name[f], jnum(fig[f])))
            goto fail;
    }
    if (set(m, "inputs", json_integer((json_int_t)d->inputs)) ||
        set(m, "count", json_integer((json_int_t)d->count)) ||
        set(m, "total_ms", spread_json(&d->in_total, d->inputs)) ||
        set(m, "mean_ms", spread_json(&d->in_mean, d->inputs)))
        goto fail;
    if (json_object_set_new(o, "merged", m))
        goto fail_om;
    m = NULL;
    for (size_t i = 0; i < d->nkids; i++)
        if (json_array_append_new(kids, sec_json(d->kids[i], d->total, whole, nsec)))
            goto fail;
    if (json_object_set_new(o, "children", kids))
        goto fail_o;
    return o;
fail:
    json_decref(m);
fail_om:
    json_decref(kids);
fail_o:
    json_decref(o);
    return NULL;
}

static json_t *doc_json(const node *root, pr_run *runs, int n, char **files)
{
    const pr_run *r0 = &runs[0];
    json_t *d = json_object(), *units, *clock, *stats, *errs, *by_code, *secs, *m, *fl;
    char created[32] = "", version[32];
    double whole = 0;
    uint64_t nerr = 0, open = 0, dropped = 0;
    int gpu = 0, fallback = 0;
    const char *last = "";
    size_t nsec = 0;
    time_t now = time(NULL);
    struct tm tm;

    if (!d)
        return NULL;
    if (gmtime_r(&now, &tm))
        strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(version, sizeof version, "%d.%d.%d", PT_VERSION_MAJOR, PT_VERSION_MINOR,
             PT_VERSION_PATCH);
    by_code = json_object();
    for (int i = 0; i < n; i++) {
        json_t *e = json_object_get(runs[i].doc, "errors"), *bc = json_object_get(e, "by_code");
        const char *k;
        json_t *v;
        nerr += runs[i].error_count;
        open += runs[i].open_count;
        dropped += runs[i].dropped;
        gpu |= runs[i].gpu_timing;
        fallback |= runs[i].gpu_fallback;
        if (runs[i].errors_last[0])
            last = runs[i].errors_last;
        json_object_foreach(bc, k, v) {
            json_int_t had = json_integer_value(json_object_get(by_code, k));
            if (json_is_integer(v))
                json_object_set_new(by_code, k, json_integer(had + json_integer_value(v)));
        }
    }
    for (size_t i = 0; i < root->nkids; i++)
        whole += root->kids[i]->total;
    peak_bw = peak_flops = 0;
    if (r0->peaks) {
        peak_bw = json_number_value(json_object_get(r0->peaks, "bytes_per_s"));
        peak_flops = json_number_value(json_object_get(r0->peaks, "flops_per_s"));
    }

    units = json_pack("{s:s, s:s, s:s, s:s, s:s}", "time", "ms", "bytes", "B", "bandwidth",
                      "GB/s (1e9 B/s)", "compute", "GFLOP/s (1e9 FLOP/s)", "percent", "%");
    clock = json_object();
    if (clock) {
        set(clock, "kind", json_string(r0->clock));
        set(clock, "ghz", jnum(r0->clock_ghz));
    }
    errs = json_object();
    if (errs) {
        set(errs, "count", json_integer((json_int_t)nerr));
        set(errs, "last", json_string(last));
        set(errs, "by_code", by_code);
    } else {
        json_decref(by_code);
    }
    secs = json_array();
    for (size_t i = 0; secs && i < root->nkids; i++)
        if (json_array_append_new(secs, sec_json(root->kids[i], whole, whole, &nsec)))
            break;
    stats = json_pack("{s:I, s:f, s:I, s:b, s:b, s:I, s:I}", "section_count", (json_int_t)nsec,
                      "total_ms", whole, "error_count", (json_int_t)nerr, "gpu_timing", gpu,
                      "gpu_fallback", fallback, "open_count", (json_int_t)open, "dropped",
                      (json_int_t)dropped);
    fl = json_array();
    for (int i = 0; fl && i < n; i++)
        json_array_append_new(fl, json_string(files[i]));
    m = json_pack("{s:i, s:o*}", "inputs", n, "files", fl);

    if (set(d, "schema", json_integer(1)) || set(d, "tool", json_string("ptkit")) ||
        set(d, "version", json_string(version)) || set(d, "name", json_string(r0->name)) ||
        set(d, "created", json_string(created)) || set(d, "units", units) ||
        set(d, "clock", clock) || set(d, "stats", stats) ||
        set(d, "device_clock",
            r0->device_clock ? json_deep_copy(r0->device_clock) : json_null()) ||
        set(d, "peaks", r0->peaks ? json_deep_copy(r0->peaks) : json_null()) ||
        set(d, "errors", errs) || set(d, "merged", m) || set(d, "sections", secs) ||
        json_array_size(secs) != root->nkids) {
        json_decref(d);
        return NULL;
    }
    return d;
}

static const char merge_usage[] = "usage: ptreport merge A.json B.json ... -o ALL.json\n";

int pr_merge(int argc, char **argv)
{
    const char *outp = NULL;
    char **files, err[1024];
    pr_run *runs;
    node *root;
    int n = 0, rc = 0, loaded = 0;
    json_t *doc = NULL;
    pt__afile o;

    files = calloc((size_t)argc + 1, sizeof *files);
    runs = calloc((size_t)argc + 1, sizeof *runs);
    root = node_new();
    if (!files || !runs || !root) {
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
            files[n++] = argv[i];
        }
    }
    if (n == 0 || !outp) {
        rc = pr_fail("merge: %s\n%s", n == 0 ? "no run given" : "no -o given", merge_usage);
        goto done;
    }
    for (; loaded < n; loaded++) {
        if (pr_run_load(&runs[loaded], files[loaded], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
            goto done;
        }
        if (add_secs(root, runs[loaded].secs, runs[loaded].nsecs)) {
            loaded++;
            rc = pr_fail("merge: out of memory");
            goto done;
        }
    }
    doc = doc_json(root, runs, n, files);
    if (!doc) {
        rc = pr_fail("merge: out of memory");
        goto done;
    }
    if (pr_out_open(&o, outp)) {
        rc = 2;
        goto done;
    }
    if (json_dumpf(doc, o.f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) || fputc('\n', o.f) == EOF) {
        pt__afile_abort(&o);
        rc = pr_fail("merge: writing %s failed", outp);
        goto done;
    }
    rc = pr_out_commit(&o, outp);
done:
    json_decref(doc);
    for (int i = 0; i < loaded; i++)
        pr_run_free(&runs[i]);
    if (root)
        node_free(root);
    free(runs);
    free(files);
    return rc;
}
