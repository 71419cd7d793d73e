/* Strings copied, one or an array of them (strv.c). Not installed. */
#ifndef PT_CORE_STRV_H
#define PT_CORE_STRV_H

#include "core/model.h"

/* A malloc'ed copy of s, or NULL without memory. */
PT__HIDDEN char *pt__str_dup(const char *s);
/* Copies of the n strings of v (none NULL), all or none: NULL without
 * memory. n may be 0 (an empty array, still to free). */
PT__HIDDEN char **pt__strv_dup(const char *const *v, int n);
/* Frees what pt__strv_dup made (NULL is a no-op). */
PT__HIDDEN void pt__strv_free(char **v, int n);

#endif
