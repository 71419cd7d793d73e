/** \file pt_version.h
 *  \brief ptkit's version, at compile time and at run time. */
#ifndef PT_VERSION_H
#define PT_VERSION_H

#define PT_VERSION_MAJOR 0
#define PT_VERSION_MINOR 1
#define PT_VERSION_PATCH 0
#define PT_VERSION_HEX \
    ((PT_VERSION_MAJOR << 16) | (PT_VERSION_MINOR << 8) | PT_VERSION_PATCH)

#include <pt/detail/pt_api.h>

PT__BEGIN_DECLS

/** \brief The version of the library linked at run time.
 *  \return "MAJOR.MINOR.PATCH" (static storage). */
PT_EXTERN const char *pt_version(void);

PT__END_DECLS
#endif
