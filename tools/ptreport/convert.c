/* ptreport convert: a saved run to another format.
 *
 *   --to csv    pt_export_csv()'s columns, written from the file (csv.c)
 *   --to html   pt_export_html()'s page of the run rebuilt as a timing
 *               (rebuild.c): every section and figure, the bottlenecks,
 *               the roofline and the tracked memory (tensors, total, peak,
 *               the device's sampled figures); the page says it comes from
 *               a saved run, which keeps no per-block records (no heatmap)
 *   --to trace  a Chrome Trace Event file of the aggregate figures
 *               (the library's report/flame.c, which pt_export_trace()
 *               writes for a timing without PT_TRACE): each section one
 *               event as long as
 *               its total, children one after another from their parent's
 *               start, so Perfetto draws the run as a flame chart
 *
 * Every output goes through the library's atomic writer, a temporary file
 * renamed into place: on any failure nothing is written, the message says
 * "OUT: why", exit 2. The output is the path as given ('%' is not
 * expanded, as the library's exports do). */
#include "ptreport.h"

#include "api/tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char convert_usage[] =
    "usage: ptreport convert RUN.json --to csv|html|trace -o OUT   (-o -: standard output)\n";

static int to_csv(const pr_run *run, const char *outp)
{
    pt__afile a;

    if (pr_out_open(&a, outp))
        return 2;
    errno = 0;
    if (pr_write_csv(run, a.f) != 0) {
        int e = errno;
        pr_out_abort(&a);
        return pr_fail("convert: writing %s: %s", outp, e ? strerror(e) : "out of memory");
    }
    return pr_out_commit(&a, outp);
}

/* The run rebuilt as a timing, written by the library's HTML writer or
 * the flame chart. */
static int to_timing_writer(const pr_run *run, const char *outp, int html)
{
    json_t *inputs = run->merged ? json_object_get(run->merged, "inputs") : NULL;
    pt__saved from = {
        .file = run->file, .created = run->created,
        .merged = json_is_integer(inputs) ? (long long)json_integer_value(inputs) : 0,
    };
    pt_timing *t;
    pt__afile a;
    int rc;

    rc = pr_rebuild(run, "convert", &t);
    if (rc)
        return rc;
    if (pr_out_open(&a, outp)) {
        pt_destroy(t);
        return 2;
    }
    rc = html ? pt__html_write(t, a.f, &from) : pt__flame_write(t, a.f, &from);
    if (rc < 0) {
        pr_out_abort(&a);
        rc = rc == PT_ENOMEM ? pr_fail("convert: out of memory")
                             : pr_fail("convert: %s", pt_last_error(t));
    } else {
        rc = pr_out_commit(&a, outp);
    }
    pt_destroy(t);
    return rc;
}

int pr_convert(int argc, char **argv)
{
    const char *file = NULL, *to = NULL, *outp = NULL;
    char err[1024];
    pr_run run;
    int rc;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--to") == 0 && i + 1 < argc)
            to = argv[++i];
        else if (strcmp(a, "-o") == 0 && i + 1 < argc)
            outp = argv[++i];
        else if (a[0] == '-' && a[1])
            return pr_fail("convert: unknown option or missing value: %s\n%s", a, convert_usage);
        else if (!file)
            file = a;
        else
            return pr_fail("convert: one run at a time\n%s", convert_usage);
    }
    if (!file || !to || !outp || !*outp)
        return pr_fail("convert: %s\n%s", !file ? "no run given" : !to ? "no --to given"
                                          : !outp ? "no -o given" : "an empty -o",
                       convert_usage);
    if (strcmp(to, "csv") != 0 && strcmp(to, "html") != 0 && strcmp(to, "trace") != 0)
        return pr_fail("convert: unknown format '%s' (csv, html or trace)", to);
    if ((rc = pr_out_not_an_input("convert", outp, &file, 1)) != 0)
        return rc;
    if (pr_run_load(&run, file, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (strcmp(to, "csv") == 0)
        rc = to_csv(&run, outp);
    else
        rc = to_timing_writer(&run, outp, strcmp(to, "html") == 0);
    pr_run_free(&run);
    return rc;
}
