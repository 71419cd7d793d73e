/* The CSV writer (export_csv.c), which ptreport's conversion of a saved
 * run goes through too. Not installed. */
#ifndef PT_REPORT_EXPORT_CSV_H
#define PT_REPORT_EXPORT_CSV_H

#include "core/model.h"

#include <stdio.h>

/* The header row: path, name, depth, kind, open, every figure, sm_ms. */
PT__HIDDEN int pt__csv_header(FILE *f);
/* One row: the section at path, of kind ("cpu" and so on), with the name,
 * depth, open mark and figures st holds, then a folded phase's time by
 * SM: sm[i] / per_ms milliseconds for SM i (nsm of them, NULL for none),
 * written "SM:ms" for each SM with time, separated by spaces. Both return
 * 0, or nonzero once a write failed (the stream keeps the error). */
PT__HIDDEN int pt__csv_row(FILE *f, const char *path, const char *kind,
                           const pt_section_stats *st, const double *sm, int nsm, double per_ms);

#endif
