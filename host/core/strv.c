/* Strings copied. */
#include "core/strv.h"

#include <stdlib.h>
#include <string.h>

char *pt__str_dup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    return c ? memcpy(c, s, n) : NULL;
}

char **pt__strv_dup(const char *const *v, int n)
{
    char **c = calloc(n > 0 ? (size_t)n : 1, sizeof *c);

    for (int i = 0; c && i < n; i++)
        if (!(c[i] = pt__str_dup(v[i]))) {
            pt__strv_free(c, i);
            return NULL;
        }
    return c;
}

void pt__strv_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}
