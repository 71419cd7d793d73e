// A C++ consumer of the installed headers and library, built with
// -Wall -Wextra -Wpedantic -Werror under -std=c++11, 14, 17 and 20 (and by
// nvcc): calls without metrics read as in C; metrics and options take
// pt::read(...).flops(...) and pt::log_opts() in every standard, and C's
// designated initializers from C++20 on. Exits non-zero when a call failed.
#include <pt/pt.h>
#include <pt/pt_dev.h>

#include <cstdio>

static int solve(pt_timing *t)
{
    PT_FUNC(t);
    return 1;
}

// A macro of one's own that forwards its metrics, given none or some.
#define FORWARD_STOP(t, title, ...) pt_stop((t), (title), __VA_ARGS__)

#ifndef PT_DISABLE
// 0 when the section at path holds exactly these figures.
static int holds(pt_timing *t, const char *path, double read, double written, double flops)
{
    pt_section_stats st;
    const pt_section *s = pt_find(t, path);
    if (!s || pt_section_get(t, s, &st) != 0)
        return 1;
    return st.read_bytes != read || st.written_bytes != written || st.flops != flops;
}
#endif

static void sink(void *ctx, const char *)
{
    ++*static_cast<int *>(ctx);
}

int main()
{
    pt_timing *t = pt_create("consumer (C++)", PT_CPU);
    double flops = 4556334;
    int rc = 0, lines = 0;

    rc |= pt_start(t, "plain");
    rc |= pt_stop(t, "plain");
    rc |= pt_start(t, "metrics", pt::read(1024000));
    rc |= pt_add(t, pt::written(234544));
    rc |= pt_stop(t, "metrics", pt::flops(flops));
    rc |= pt_start(t, "chained");
    rc |= pt_stop(t, "chained", pt::read(1024000).written(234544).flops(flops));
    PT_SECTION(t, "scoped") {
        rc |= solve(t) - 1;
    }
    PT_SECTION(t, "scoped with metrics", pt::metrics().read(1).written(2).flops(3)) {
    }
    pt_start(t, "statement");
    pt_stop(t, "statement");
    pt_start(t, "forwarded");
    rc |= FORWARD_STOP(t, "forwarded", );
    pt_start(t, "forwarded");
    rc |= FORWARD_STOP(t, "forwarded", pt::read(5));
    rc |= pt_start_gpu(t, "launch", 0);
    rc |= pt_stop_gpu(t, "launch", 0, pt::flops(1e6));
#if __cplusplus >= 202002L
    rc |= pt_start(t, "designated", .read = 1024000);
    rc |= pt_stop(t, "designated", .written = 234544, .flops = flops);
    rc |= pt_log(t, stdout, .percentages = 1);
#endif
    rc |= pt_log(t, stdout);
    rc |= pt_log(t, stdout, pt::log_opts().percentages(1).sort(PT_SORT_TIME));
    rc |= pt_log_fn(t, sink, &lines);
#ifndef PT_DISABLE
    if (lines == 0)
        rc = 1;
    rc |= holds(t, "metrics", 1024000, 234544, 4556334) << 1;
    rc |= holds(t, "chained", 1024000, 234544, 4556334) << 2;
    rc |= holds(t, "scoped with metrics", 1, 2, 3) << 3;
    rc |= holds(t, "plain", 0, 0, 0) << 4;
    rc |= holds(t, "forwarded", 5, 0, 0) << 5;
    rc |= holds(t, "launch", 0, 0, 1e6) << 6;
#  if __cplusplus >= 202002L
    rc |= holds(t, "designated", 1024000, 234544, 4556334) << 7;
#  endif
    if (rc)
        std::fprintf(stderr, "consumer: failed checks 0x%x\n", static_cast<unsigned>(rc));
#endif
    pt_destroy(t);
    return rc != 0;
}
