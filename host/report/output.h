/* PT_OUTPUT (output.c): the reports a run writes, chosen by the
 * environment, read at pt_create() and written at pt_destroy(). Not
 * installed. */
#ifndef PT_REPORT_OUTPUT_H
#define PT_REPORT_OUTPUT_H

#include "core/model.h"

/* PT_OUTPUT's value in *spec (NULL when unset or empty), and the flags
 * its outputs need on the timing (PT_TRACE for a trace). */
PT__HIDDEN unsigned pt__output_flags(const char **spec);
/* Keeps spec on t, counting on t what in it names no output. */
PT__HIDDEN void pt__output_init(pt_timing *t, const char *spec);
/* Writes t's outputs, once; what fails is said on stderr. */
PT__HIDDEN void pt__output_write(pt_timing *t);

#endif
