/* JSON text (json.c). Not installed. */
#ifndef PT_REPORT_JSON_H
#define PT_REPORT_JSON_H

#include "core/model.h"

#include <stdio.h>

/* s as a JSON string on f, escaped and valid UTF-8 (with html, also
 * without '<', '>' and '&'). Returns 0, or -1 when a write failed. */
PT__HIDDEN int pt__json_str(FILE *f, const char *s, int html);

#endif
