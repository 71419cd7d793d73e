/* The HTML page of a timing rebuilt from a saved run (export_html.c).
 * Not installed. */
#ifndef PT_REPORT_EXPORT_HTML_H
#define PT_REPORT_EXPORT_HTML_H

#include "core/restore.h"

/* pt_export_html() of a timing rebuilt from `from` (NULL: a live run, as
 * pt_export_html() itself). The page names the file and says that what a
 * saved run does not keep (the per-block records of folds) is not
 * drawn. Returns as pt_export_html(). */
PT__HIDDEN int pt__export_html_saved(pt_timing *t, const char *path, const pt__saved *from);

#endif
