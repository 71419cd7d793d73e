/* What every sample does at the end: write the run's reports into a
 * directory under one base name (base.json, .csv, .html, .trace.json) and
 * say where they went. */
#ifndef PT_SAMPLE_REPORTS_H
#define PT_SAMPLE_REPORTS_H

#include <pt/pt.h>
#include <stdio.h>

static inline void sample_write_reports(pt_timing *t, const char *dir, const char *base)
{
    static const struct {
        const char *ext;
        int (*write)(pt_timing *, const char *);
    } out[] = {
        { "json", pt_export_json },
        { "csv", pt_export_csv },
        { "html", pt_export_html },
        { "trace.json", pt_export_trace },
    };
    const char *sep = "\nwrote ";
    char path[4096];

    for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, out[i].ext);
        int rc = out[i].write(t, path);
        /* PT_EOPEN still wrote the file: sections were open, and it says so. */
        if (rc == 0 || rc == PT_EOPEN) {
            printf("%s%s", sep, path);
            sep = ", ";
        } else {
            fprintf(stderr, "%s: %s\n", path, pt_last_error(t));
        }
    }
    putchar('\n');
}

#endif
