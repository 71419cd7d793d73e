/* The JSON export (export_json.c), with room for what ptreport's merge
 * adds to a pooled run. Not installed. */
#ifndef PT_REPORT_EXPORT_JSON_H
#define PT_REPORT_EXPORT_JSON_H

#include "report/json.h"

/* What a writer of a run rebuilt from saved ones adds to the export. */
typedef struct pt__json_more {
    /* Members of a section's object after its figures. */
    void (*section)(void *ctx, pt__json *w, const pt_section *s);
    /* Members of the document after "errors", before "sections". */
    void (*document)(void *ctx, pt__json *w);
    void *ctx;
    /* The run was pooled from saved runs: "threads" is empty (their
     * threads are not this process's) and "memory" null. */
    int saved;
} pt__json_more;

/* The export of t on f, as pt_export_json() writes it, with more's
 * members (NULL: none). Settles t first. Returns 0 or PT_ENOMEM; a failed
 * write is left on f's error flag. */
PT__HIDDEN int pt__json_export_write(pt_timing *t, FILE *f, const pt__json_more *more);

#endif
