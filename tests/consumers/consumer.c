/* A C consumer of the installed headers and library: every call that
 * takes metrics or options, with them and without, built with
 * -std=c11 -Wall -Wextra -Wpedantic -Werror (and again with -DPT_DISABLE).
 * Prints the report; exits non-zero when a call failed. */
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include <stdio.h>
#include <string.h>

static int solve(pt_timing *t)
{
    PT_FUNC(t);
    return 1;
}

/* A macro of one's own that forwards its metrics, given none or some. */
#define FORWARD_STOP(t, title, ...) pt_stop((t), (title), __VA_ARGS__)

#ifndef PT_DISABLE
/* 0 when the section at path holds exactly these figures. */
static int holds(pt_timing *t, const char *path, double read, double written, double flops)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    if (!s || pt_section_get(t, s, &st) != 0)
        return 1;
    return st.read_bytes != read || st.written_bytes != written || st.flops != flops;
}
#endif

static void sink(void *ctx, const char *line)
{
    (*(int *)ctx)++;
    (void)line;
}

int main(void)
{
    pt_timing *t = pt_create("consumer (C)", PT_CPU);
    double flops = 4556334;
    int rc = 0, lines = 0;

    rc |= pt_start(t, "plain");
    rc |= pt_stop(t, "plain");
    rc |= pt_start(t, "metrics", .read = 1024000);
    rc |= pt_add(t, .written = 234544);
    rc |= pt_stop(t, "metrics", .flops = flops);
    PT_SECTION(t, "scoped") {
        rc |= solve(t) - 1;
    }
    PT_SECTION(t, "scoped with metrics", .read = 1, .written = 2, .flops = 3) {
    }
    pt_start(t, "statement");               /* calls as statements, their result unused */
    pt_stop(t, "statement");
    pt_start(t, "forwarded");
    rc |= FORWARD_STOP(t, "forwarded", );
    pt_start(t, "forwarded");
    rc |= FORWARD_STOP(t, "forwarded", .read = 5);
    rc |= pt_start_gpu(t, "launch", 0);
    rc |= pt_stop_gpu(t, "launch", 0, .flops = 1e6);
    rc |= pt_log(t, stdout);
    rc |= pt_log(t, stdout, .percentages = 1, .sort = PT_SORT_TIME);
    rc |= pt_log_fn(t, sink, &lines);
#ifndef PT_DISABLE
    if (lines == 0)
        rc = 1;
    rc |= holds(t, "metrics", 1024000, 234544, 4556334) << 1;
    rc |= holds(t, "scoped with metrics", 1, 2, 3) << 2;
    rc |= holds(t, "plain", 0, 0, 0) << 3;
    rc |= holds(t, "forwarded", 5, 0, 0) << 4;
    rc |= holds(t, "launch", 0, 0, 1e6) << 5;
    if (rc)
        fprintf(stderr, "consumer: failed checks 0x%x\n", (unsigned)rc);
#endif
    pt_destroy(t);
    return rc != 0;
}
