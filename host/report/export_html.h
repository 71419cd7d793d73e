/* The HTML page (export_html.c), for a live timing or one rebuilt from a
 * saved run. Not installed. */
#ifndef PT_REPORT_EXPORT_HTML_H
#define PT_REPORT_EXPORT_HTML_H

#include "core/restore.h"

#include <stdio.h>

/* The page of t on f, as pt_export_html() writes it. With `from` (a
 * timing rebuilt from a saved run) the page names the file and says that
 * what a saved run does not keep (the per-block records of folds) is not
 * drawn. Settles t first. Returns 0, PT_ENOMEM or PT_ESTATE, counted on t;
 * a failed write is left on f's error flag. */
PT__HIDDEN int pt__html_write(pt_timing *t, FILE *f, const pt__saved *from);

#endif
