/** \file pt_api.h
 *  \brief Internal: how ptkit's public headers declare their API. One
 *  place for the export attribute, the C linkage nvcc (a C++ compiler)
 *  needs, C++ default member initializers and the deprecation of old
 *  names. Include a public header instead (<pt/pt.h>, <pt/pt_version.h>,
 *  <pt/pt_nvrtc.h>, <pt/pt_mpi.h>). */
#ifndef PT_DETAIL_PT_API_H
#define PT_DETAIL_PT_API_H

#if !defined(PT_PT_H) && !defined(PT_VERSION_H) && !defined(PT_PT_NVRTC_H) && \
    !defined(PT_PT_MPI_H)
#  error "include <pt/pt.h>"
#endif

/* Exported from libptkit, which is built with -fvisibility=hidden. */
#ifndef PT_EXTERN
#  define PT_EXTERN __attribute__((visibility("default")))
#endif

/* C linkage for C++ (nvcc's host code), around each header's declarations. */
#ifdef __cplusplus
#  define PT__BEGIN_DECLS extern "C" {
#  define PT__END_DECLS }
#else
#  define PT__BEGIN_DECLS
#  define PT__END_DECLS
#endif

/* In C++ the members of the option structs carry default initializers,
 * so a call naming some of them draws no missing-initializer warning. */
#ifdef __cplusplus
#  define PT__DEF(x) = x
#else
#  define PT__DEF(x)
#endif

/* An old name kept for one release: using it draws a warning that names
 * the new one. */
#if defined(__GNUC__) || defined(__clang__)
#  define PT__DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#  define PT__DEPRECATED(msg)
#endif

#endif
