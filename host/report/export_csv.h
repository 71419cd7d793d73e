/* The CSV writer (export_csv.c), which ptreport's conversion of a saved
 * run goes through too. Not installed. */
#ifndef PT_REPORT_EXPORT_CSV_H
#define PT_REPORT_EXPORT_CSV_H

#include "core/model.h"

#include "report/lines.h"

#include <stdint.h>
#include <stdio.h>

/* A path deeper than this many titles is cut: its first title, "…" (U+2026)
 * for those left out, and its last PT__CSV_PATH_LAST; so a row's bytes do
 * not grow with its depth (id and parent give the whole chain). */
#define PT__CSV_PATH_WHOLE 8
#define PT__CSV_PATH_LAST 6

/* The rows written so far, as the CSV numbers them: the titles and ids of
 * the last row's ancestors by depth. Zeroed to start; pt__csv_walk_end()
 * frees it. */
typedef struct pt__csv_walk {
    struct pt__csv_anc {
        const char *name;     /* the title at this depth */
        uint64_t id;          /* its id */
    } *anc;                   /* by depth */
    size_t cap;
    uint64_t next;            /* the next row's id */
    pt__lines path;           /* the row's path, built again in it for every row */
} pt__csv_walk;

/* The header row: path, name, depth, kind, open, every figure, sm_ms,
 * id, parent. */
PT__HIDDEN int pt__csv_header(FILE *f);
/* The next row, depth first (each section after its parent): the section
 * of kind ("cpu" and so on) with the name, depth, open mark and figures
 * st holds, its path made from the walk's titles, then a folded phase's
 * time by SM: sm[i] / per_ms milliseconds for SM i (nsm of them, NULL for
 * none), written "SM:ms" for each SM with time, separated by spaces;
 * then its id (0, 1, ... in the order written, the JSON export's) and its
 * parent's (-1 at the top). O(1) in the depth. Both return 0, or nonzero
 * once a write failed (the stream keeps the error) or memory ran out. */
PT__HIDDEN int pt__csv_row(FILE *f, pt__csv_walk *w, const char *kind,
                           const pt_section_stats *st, const double *sm, int nsm, double per_ms);
PT__HIDDEN void pt__csv_walk_end(pt__csv_walk *w);

#endif
