/* Writers for a timing rebuilt from a saved run (ptreport convert): the
 * HTML page, told where its figures came from, and the run's aggregate
 * figures as a Chrome trace laid out as a flame chart. Hidden: ptreport
 * links the static library. Not installed. */
#ifndef PT_EXPORT_SAVED_H
#define PT_EXPORT_SAVED_H

#include "core/timing.h"

/* Where a rebuilt timing came from. */
typedef struct pt__saved {
    const char *file;         /* the saved run, as it was named to ptreport */
    const char *created;      /* its "created" stamp; NULL or "" when unknown */
    long long merged;         /* runs pooled into it by ptreport merge; 0 for one run */
} pt__saved;

/* pt_export_html() of a timing rebuilt from `from` (NULL: a live run, as
 * pt_export_html() itself). The page names the file and says that what a
 * saved run does not keep (the per-block records of folds) is not
 * drawn. Returns as pt_export_html(). */
PT__HIDDEN int pt__export_html_saved(pt_timing *t, const char *path, const pt__saved *from);

/* A Chrome Trace Event file (the container pt_export_trace() writes) of
 * the aggregate figures: every section one complete ("X") event as long
 * as its total over all its occurrences, a section's children laid one
 * after another from its start in order of first start, the top-level
 * sections one after another from 0. One track, so viewers draw the tree
 * as a flame chart; each event's "args" hold the section's figures and
 * "metadata" says the layout is aggregate. Where children's totals add up
 * to more than their parent's (a CUDA-event-timed launch still running
 * after the host section that queued it ended; rounding aside), the
 * parent is drawn as long as its children and its args say so. `from`
 * may be NULL. Written through a temporary file and renamed.
 * Returns 0; PT_EOPEN when sections are open (written with them, their
 * totals without the running occurrence); PT_EINVAL for a NULL or empty
 * path; PT_EIO; PT_ENOMEM. */
PT__HIDDEN int pt__export_flame(pt_timing *t, const char *path, const pt__saved *from);

#endif
