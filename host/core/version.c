/* The version of the library linked at run time. */
#include <pt/pt_version.h>

#define PT__STR2(x) #x
#define PT__STR(x) PT__STR2(x)

const char *pt_version(void)
{
    return PT__STR(PT_VERSION_MAJOR) "." PT__STR(PT_VERSION_MINOR) "." PT__STR(PT_VERSION_PATCH);
}
