/* ptreport show: the text report of a saved run. The run is rebuilt as a
 * live timing (rebuild.c) and printed by pt_log() itself, so a report
 * made now and one made from the file later are laid out by one writer. */
#include "ptreport.h"

#include <pt/pt.h>
#include <stdlib.h>
#include <string.h>

/* Writes pt_log()'s lines to stdout; a merged run's origin, which only a
 * file can have, goes under the first line, the report's title. */
typedef struct out {
    const pr_run *run;
    size_t lines;
} out;

static void out_line(void *ctx, const char *line)
{
    out *o = ctx;

    fputs(line, stdout);
    fputc('\n', stdout);
    if (o->lines++ == 0 && o->run->merged) {
        json_t *n = json_object_get(o->run->merged, "inputs");
        printf("  merged from %lld runs: per section, count and figures pooled over them\n",
               json_is_integer(n) ? (long long)json_integer_value(n) : 0LL);
    }
}

static const char show_usage[] =
    "usage: ptreport show RUN.json [--sort time|flops|name|order] [--depth N] [--percentages]\n";

int pr_show(int argc, char **argv)
{
    const char *file = NULL;
    int depth = 0, pct = 0;
    char err[1024];
    pr_run run;
    int sort = PT_SORT_ORDER, rc;
    pt_timing *t;
    out o;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--percentages") == 0) {
            pct = 1;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc) {
            const char *s = argv[++i];
            if (strcmp(s, "time") == 0)
                sort = PT_SORT_TIME;
            else if (strcmp(s, "flops") == 0)
                sort = PT_SORT_FLOPS;
            else if (strcmp(s, "name") == 0)
                sort = PT_SORT_NAME;
            else if (strcmp(s, "order") == 0)
                sort = PT_SORT_ORDER;
            else
                return pr_fail("show: unknown sort '%s' (time, flops, name, order)\n%s", s,
                               show_usage);
        } else if (strcmp(a, "--depth") == 0 && i + 1 < argc) {
            char *end;
            long d = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || d < 0 || d > 100000)
                return pr_fail("show: --depth wants a whole number >= 0 (0: all), not '%s'",
                               argv[i]);
            depth = (int)d;
        } else if (a[0] == '-' && a[1]) {
            return pr_fail("show: unknown option or missing value: %s\n%s", a, show_usage);
        } else if (!file) {
            file = a;
        } else {
            return pr_fail("show: one run at a time\n%s", show_usage);
        }
    }
    if (!file)
        return pr_fail("show: no run given\n%s", show_usage);
    if (pr_run_load(&run, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    rc = pr_rebuild(&run, "show", &t);
    if (rc) {
        pr_run_free(&run);
        return rc;
    }
    o.run = &run;
    o.lines = 0;
    /* Open sections make pt_log() return PT_EOPEN after the whole report;
     * the report says so itself, as it did when the run was live. */
    rc = pt_log_fn(t, out_line, &o, .sort = sort, .max_depth = depth, .percentages = pct);
    pt_destroy(t);
    pr_run_free(&run);
    if (rc == PT_ENOMEM)
        return pr_fail("show: out of memory");
    if (fflush(stdout) != 0 || ferror(stdout))
        return pr_fail("show: writing the report failed");
    return 0;
}
