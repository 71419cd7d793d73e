/** \file pt_version.h
 *  \brief ptkit's version, at compile time and at run time. */
#ifndef PT_VERSION_H
#define PT_VERSION_H

#define PT_VERSION_MAJOR 0
#define PT_VERSION_MINOR 1
#define PT_VERSION_PATCH 0
#define PT_VERSION_HEX \
    ((PT_VERSION_MAJOR << 16) | (PT_VERSION_MINOR << 8) | PT_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** \brief The version of the library linked at run time.
 *  \return "MAJOR.MINOR.PATCH" (static storage). */
__attribute__((visibility("default"))) const char *pt_version(void);

#ifdef __cplusplus
}
#endif
#endif
