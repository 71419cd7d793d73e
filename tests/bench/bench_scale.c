/* How reports scale with the tree: the time per section of pt_log(),
 * pt_export_json(), pt_export_html(), pt_export_csv() and of ptreport
 * show and merge on the JSON export, at 1,000 sections and at N (100,000
 * by default), in two shapes:
 *   - flat: every section at the top;
 *   - deep: ten chains, each N/10 levels deep (10,000 at N = 100,000).
 * The last column is the time per section at N over that at 1,000 of the
 * same shape: 1 is linear, the goal is <= 2 (O(n log n) or better in the
 * sections, linear in the depth). Each figure is the median of a few
 * rounds; the machine is shared. Under the table, the CSV's bytes per
 * section in each shape: the same at any depth when it is linear.
 *
 *   bench_scale PTREPORT [N]      PT_BENCH_SECTIONS=N does the same
 *
 * Then the edges (edges() below): one chain PT_BENCH_DEEP deep (100,000)
 * and PT_BENCH_WIDE sections at the top (1,000,000), each report made
 * once; a failure or a crash there fails the bench. 0 leaves one out
 * (CI leaves out the wide one: about 2 minutes and 9 GB for ptreport's
 * JSON tree; the limits suite makes both shapes on a small stack).
 *
 * And the fold (fold_scale() below): pt_dev_fold of one launch's records,
 * one phase, the blocks spread over 132 SMs as on an H100, at 132 blocks
 * and at 13,200: the time a fold takes per block at each, and their
 * ratio (goal <= 2). Every PT_LAUNCH and every replay of a captured graph
 * pays a fold on the host.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* wait4 */
#include <pt/pt.h>
#include <pt/pt_dev_buf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_median.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n sections in `chains` chains n/chains deep (c<k> at the top of chain
 * k, then s1, s2, ... down it): flat when chains is n. */
static pt_timing *tree(long n, long chains)
{
    pt_timing *t = pt_create("scale", PT_CPU);
    char title[32];
    long depth = n / chains;

    for (long c = 0; c < chains; c++) {
        for (long d = 0; d < depth; d++) {
            snprintf(title, sizeof title, "%c%ld", d ? 's' : 'c', d ? d : c);
            pt_start(t, title);
        }
        for (long d = depth; d-- > 0;) {
            snprintf(title, sizeof title, "%c%ld", d ? 's' : 'c', d ? d : c);
            pt_stop(t, title);
        }
    }
    return t;
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

enum { LOG, BNECK, JSON, HTML, CSV, SHOW, MERGE, NOPS };
static const char *const op_name[NOPS] = { "pt_log", "bottlenecks", "pt_export_json",
                                           "pt_export_html", "pt_export_csv", "ptreport show",
                                           "ptreport merge" };

/* Seconds per section of each operation, median of `rounds`; the CSV's
 * bytes per section into *csv_bytes. */
static int measure(const char *ptreport, const char *dir, long n, int deep, int rounds,
                   double out[NOPS], double *csv_bytes)
{
    char json[512], html[512], csv[512], cmd[2048];
    struct stat sb;
    double v[NOPS][5];
    FILE *null = fopen("/dev/null", "w");
    pt_timing *t = tree(n, deep ? 10 : n);

    if (!t || !null)
        return -1;
    snprintf(json, sizeof json, "%s/run.json", dir);
    snprintf(html, sizeof html, "%s/run.html", dir);
    snprintf(csv, sizeof csv, "%s/run.csv", dir);
    for (int r = 0; r < rounds; r++) {
        double t0 = now_s();
        if (pt_log(t, null) != 0)
            return -1;
        v[LOG][r] = now_s() - t0;
        /* The bottlenecks view ranking every section (top = N). */
        t0 = now_s();
        if (pt_log(t, null, .view = PT_VIEW_BOTTLENECKS, .top = (int)n) != 0)
            return -1;
        v[BNECK][r] = now_s() - t0;
        t0 = now_s();
        if (pt_export_json(t, json) != 0)
            return -1;
        v[JSON][r] = now_s() - t0;
        t0 = now_s();
        if (pt_export_html(t, html) != 0)
            return -1;
        v[HTML][r] = now_s() - t0;
        t0 = now_s();
        if (pt_export_csv(t, csv) != 0)
            return -1;
        v[CSV][r] = now_s() - t0;
        snprintf(cmd, sizeof cmd, "%s show %s >/dev/null", ptreport, json);
        t0 = now_s();
        if (run(cmd) != 0)
            return -1;
        v[SHOW][r] = now_s() - t0;
        /* Two runs (a copy: one file given twice is refused). */
        snprintf(cmd, sizeof cmd, "cp %s %s/run2.json", json, dir);
        if (run(cmd) != 0)
            return -1;
        snprintf(cmd, sizeof cmd, "%s merge %s %s/run2.json -o %s/all.json", ptreport, json, dir,
                 dir);
        t0 = now_s();
        if (run(cmd) != 0)
            return -1;
        v[MERGE][r] = now_s() - t0;
    }
    for (int k = 0; k < NOPS; k++)
        out[k] = median(v[k], rounds) / (double)n;
    if (stat(csv, &sb) != 0)
        return -1;
    *csv_bytes = (double)sb.st_size / (double)n;
    pt_destroy(t);
    fclose(null);
    return 0;
}

/* The edges: one chain `deep` sections deep and `wide` sections at the
 * top, each report made once (pt_log, the JSON, HTML and CSV exports,
 * ptreport show), so a walk that recursed, or a buffer on the stack that
 * grew with the tree, would crash here. Prints each one's seconds; -1 if
 * one failed. */
static int edges(const char *ptreport, const char *dir, long deep, long wide)
{
    static const char *const what[] = { "pt_log", "json", "html", "csv", "show" };
    char file[4][512], cmd[2048];
    FILE *null = fopen("/dev/null", "w");
    static const char *const ext[4] = { "", "json", "html", "csv" };

    if (!null)
        return -1;
    for (int k = 1; k < 4; k++)
        snprintf(file[k], sizeof file[k], "%s/edge.%s", dir, ext[k]);
    for (int shape = 0; shape < 2; shape++) {
        long n = shape ? wide : deep;
        double t0 = now_s(), sec[5];
        pt_timing *t;
        double built;
        int rc = 0;

        if (n <= 0)
            continue;
        t = tree(n, shape ? n : 1);
        built = now_s() - t0;
        for (int k = 0; k < 5 && rc == 0; k++) {
            t0 = now_s();
            if (k == 0)
                rc = pt_log(t, null);
            else if (k == 1)
                rc = pt_export_json(t, file[1]);
            else if (k == 2)
                rc = pt_export_html(t, file[2]);
            else if (k == 3)
                rc = pt_export_csv(t, file[3]);
            else {
                snprintf(cmd, sizeof cmd, "%s show %s >/dev/null", ptreport, file[1]);
                rc = run(cmd);
            }
            sec[k] = now_s() - t0;
            if (rc != 0)
                fprintf(stderr, "bench_scale: %s of %ld %s failed (%d)\n", what[k], n,
                        shape ? "wide" : "deep", rc);
        }
        pt_destroy(t);
        if (rc != 0) {
            fclose(null);
            return -1;
        }
        printf("%ld %s: built in %.1f s; seconds: pt_log %.2f, json %.2f, html %.2f, csv %.2f, "
               "ptreport show %.2f\n", n, shape ? "wide" : "deep", built, sec[0], sec[1], sec[2],
               sec[3], sec[4]);
    }
    fclose(null);
    return 0;
}

/* Runs cmd through sh; its seconds into *s and its peak resident set in
 * kB into *kb (wait4's, of that process alone). -1 if it failed. */
static int run_measured(const char *cmd, double *s, long *kb)
{
    struct rusage ru;
    double t0 = now_s();
    int st;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    *s = now_s() - t0;
    *kb = ru.ru_maxrss;
    return 0;
}

/* ptreport merge of 10 and of `many` runs of 100 sections each (copies of
 * one): seconds per input and peak memory, each at many over at 10. The
 * inputs are read one at a time, so the memory stays that of the pool
 * and one input: the goal is a ratio near 1 for both. */
static int merge_many(const char *ptreport, const char *dir, int many)
{
    char json[512], cmd[1024], *list;
    double s[2];
    long kb[2];
    int counts[2] = { 10, many };
    pt_timing *t = tree(100, 100);
    size_t cap = (size_t)many * 64 + 256;

    snprintf(json, sizeof json, "%s/in-0.json", dir);
    if (!t || pt_export_json(t, json) != 0)
        return -1;
    pt_destroy(t);
    list = malloc(cap);
    if (!list)
        return -1;
    for (int i = 1; i < many; i++) {
        snprintf(cmd, sizeof cmd, "cp %s %s/in-%d.json", json, dir, i);
        if (run(cmd) != 0)
            return -1;
    }
    for (int k = 0; k < 2; k++) {
        size_t at = (size_t)snprintf(list, cap, "%s merge", ptreport);
        for (int i = 0; i < counts[k]; i++)
            at += (size_t)snprintf(list + at, cap - at, " %s/in-%d.json", dir, i);
        snprintf(list + at, cap - at, " -o %s/merged.json", dir);
        if (run_measured(list, &s[k], &kb[k]) < 0) {
            free(list);
            return -1;
        }
    }
    free(list);
    printf("ptreport merge of %d runs against 10: %.2f ms and %.2f ms per input (ratio %.2f); "
           "peak memory %ld kB and %ld kB (ratio %.2f)\n", many, s[1] * 1e3 / many,
           s[0] * 1e3 / 10, s[1] / many / (s[0] / 10), kb[1], kb[0], (double)kb[1] / kb[0]);
    return 0;
}

/* The median seconds of `rounds` folds of a launch of `blocks` records
 * (host memory), each block on SM block % 132 for 20 us, its one phase
 * most of it; -1 when a fold fails. */
static double fold_round(long blocks, int rounds)
{
    pt_timing *t = pt_create("fold", PT_CPU);
    pt_dev_records *r = pt_dev_records_create(t, (int)blocks, 1, NULL, PT_DEV_HOST, 0);
    double s[16], t0;
    int ok = t && r;

    for (int k = 0; ok && k < rounds && k < 16; k++) {
        pt_dev_buf b;
        pt_dev_reset(r, NULL);
        b = pt_dev_arg(r);
        for (long i = 0; i < blocks; i++) {
            long long *rec = b.data + PT_DEV_HDR + i * PT_DEV_SLOT_WORDS(1, 0);
            rec[PT_DEV_S_DONE] = 1;
            rec[PT_DEV_S_SMID] = rec[PT_DEV_S_SMID1] = i % 132;
            rec[PT_DEV_S_CLK0] = 1000000 + 37 * i;
            rec[PT_DEV_S_CLK1] = rec[PT_DEV_S_CLK0] + 40000;
            rec[PT_DEV_S_GT0] = 5000000 + 19 * i;
            rec[PT_DEV_S_GT1] = rec[PT_DEV_S_GT0] + 20000;
            rec[PT_DEV_SLOT_HDR] = 39000;
            rec[PT_DEV_SLOT_HDR + 1] = 1;
        }
        pt_start(t, "k");
        pt_stop(t, "k");
        t0 = now_s();
        ok = pt_dev_fold(t, r, "k") == 0;
        s[k] = now_s() - t0;
    }
    if (!ok)
        fprintf(stderr, "bench_scale: the fold failed: %s\n", t ? pt_last_error(t) : "no timing");
    pt_dev_records_free(r);
    pt_destroy(t);
    return ok ? median(s, rounds < 16 ? rounds : 16) : -1;
}

static int fold_scale(void)
{
    double small = fold_round(132, 15), big = fold_round(13200, 5);
    if (small < 0 || big < 0)
        return -1;
    printf("pt_dev_fold of a launch, one phase, 132 SMs: %.1f us a fold of 132 blocks (%.0f ns "
           "a block), %.0f ns a block at 13,200 (ratio %.2f, goal <= 2)\n", small * 1e6,
           small * 1e9 / 132, big * 1e9 / 13200, (big / 13200) / (small / 132));
    return 0;
}

int main(int argc, char **argv)
{
    const char *env = getenv("PT_BENCH_SECTIONS");
    long n = argc > 2 ? atol(argv[2]) : env && *env ? atol(env) : 100000;
    char dir[] = "/tmp/pt-bench-scale-XXXXXX", cmd[600];
    double small[2][NOPS], big[2][NOPS], bytes[2][2], worst = 0;
    const char *d_env = getenv("PT_BENCH_DEEP"), *w_env = getenv("PT_BENCH_WIDE");
    long edge_deep = d_env && *d_env ? atol(d_env) : 100000;
    long edge_wide = w_env && *w_env ? atol(w_env) : 1000000;
    int rc;

    if (argc < 2 || n < 1000) {
        fprintf(stderr, "usage: bench_scale PTREPORT [SECTIONS >= 1000]\n");
        return 2;
    }
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    for (int deep = 0; deep < 2; deep++)
        if (measure(argv[1], dir, 1000, deep, 5, small[deep], &bytes[deep][0]) < 0 ||
            measure(argv[1], dir, n, deep, n > 20000 ? 1 : 3, big[deep], &bytes[deep][1]) < 0) {
            fprintf(stderr, "bench_scale: a report failed\n");
            return 1;
        }
    printf("Reports at scale: time per section at 1,000 and at %ld sections\n", n);
    printf("(flat: all at the top; deep: ten chains %ld levels deep at %ld)\n", n / 10, n);
    printf("%-16s %-5s %12s %12s %8s\n", "", "shape", "us @ 1,000", "us @ N", "ratio");
    for (int k = 0; k < NOPS; k++)
        for (int deep = 0; deep < 2; deep++) {
            double r = big[deep][k] / small[deep][k];
            worst = r > worst ? r : worst;
            printf("%-16s %-5s %12.2f %12.2f %8.2f\n", op_name[k], deep ? "deep" : "flat",
                   small[deep][k] * 1e6, big[deep][k] * 1e6, r);
        }
    printf("worst ratio (goal <= 2): %.2f\n", worst);
    printf("CSV bytes per section at 1,000 and at N: flat %.0f, %.0f; deep %.0f, %.0f\n",
           bytes[0][0], bytes[0][1], bytes[1][0], bytes[1][1]);
    if (merge_many(argv[1], dir, 1000) < 0) {
        fprintf(stderr, "bench_scale: the merge of many inputs failed\n");
        return 1;
    }
    if (fold_scale() < 0)
        return 1;
    fflush(stdout);
    rc = edges(argv[1], dir, edge_deep, edge_wide);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    run(cmd);
    return rc < 0 ? 1 : 0;
}
