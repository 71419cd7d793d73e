/* ptreport convert: a saved run to another format.
 *
 *   --to csv    pt_export_csv()'s columns, written from the file (csv.c)
 *   --to html   pt_export_html()'s page of the run rebuilt as a timing
 *               (rebuild.c): every section and figure, the bottlenecks,
 *               the roofline and the tracked memory (tensors, total, peak,
 *               the device's sampled figures); the page says it comes from
 *               a saved run, which keeps no per-block records (no heatmap)
 *   --to trace  a Chrome Trace Event file of the aggregate figures
 *               (flame.c): each section one event as long as
 *               its total, children one after another from their parent's
 *               start, so Perfetto draws the run as a flame chart
 *
 * Every output goes through a temporary file renamed into place: on any
 * failure nothing is written, the message says "OUT: why", exit 2. */
#include "ptreport.h"

#include "report/export_html.h"

#include <stdlib.h>
#include <string.h>

static const char convert_usage[] =
    "usage: ptreport convert RUN.json --to csv|html|trace -o OUT\n";

static int to_csv(const pr_run *run, const char *outp)
{
    pr_out o;
    int rc;

    if (pr_out_open(&o, outp))
        return 2;
    rc = pr_write_csv(run, o.f);
    if (rc) {
        pr_out_abort(&o);
        return pr_fail("convert: writing %s failed", outp);
    }
    return pr_out_commit(&o) ? 2 : 0;
}

/* The library's message for a failed export, as "OUT: why": what its
 * message says after "export to \"OUT\": ", when it says that, else all
 * of it. */
static int export_failed(pt_timing *t, const char *outp)
{
    const char *msg = pt_last_error(t), *why;
    size_t n = strlen(outp) + sizeof "export to \"\": ";
    char *lead = malloc(n);

    if (lead) {
        snprintf(lead, n, "export to \"%s\": ", outp);
        why = strstr(msg, lead);
        if (why)
            msg = why + strlen(lead);
        free(lead);
    }
    return pr_fail("%s: %s", outp, msg);
}

/* outp with each '%' doubled: the library expands %r and %p in export
 * paths, and -o is a plain path, as it is for csv. NULL without memory. */
static char *literal_path(const char *outp)
{
    char *lit = malloc(2 * strlen(outp) + 1), *d = lit;

    if (!lit)
        return NULL;
    for (const char *s = outp;; s++) {
        if (*s == '%')
            *d++ = '%';
        if (!(*d++ = *s))
            break;
    }
    return lit;
}

static int to_timing_writer(const pr_run *run, const char *outp, int html)
{
    json_t *inputs = run->merged ? json_object_get(run->merged, "inputs") : NULL;
    pt__saved from = {
        .file = run->file, .created = run->created,
        .merged = json_is_integer(inputs) ? (long long)json_integer_value(inputs) : 0,
    };
    char *lit = literal_path(outp);
    pt_timing *t;
    int rc;

    if (!lit)
        return pr_fail("convert: out of memory");
    rc = pr_rebuild(run, "convert", &t);
    if (rc == 0) {
        rc = html ? pt__export_html_saved(t, lit, &from) : pt__export_flame(t, lit, &from);
        /* Sections open at save time are written, marked, as the live
         * export wrote them: PT_EOPEN is not a failure here. */
        rc = rc < 0 && rc != PT_EOPEN ? export_failed(t, outp) : 0;
        pt_destroy(t);
    }
    free(lit);
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
