/** \file pt_nvrtc.h
 *  \brief The device headers for run-time compilation: pt_dev.h and the
 *  headers it includes, embedded in libptkit, ready for nvrtcCreateProgram.
 *
 *  \code
 *  int n; const char *const *names, *const *srcs;
 *  pt_nvrtc_headers(&n, &names, &srcs);
 *  nvrtcCreateProgram(&prog, src, "k.cu", n, srcs, names);
 *  \endcode
 *  The kernel source then says `#include <pt/pt_dev.h>`. The library does
 *  not link NVRTC; it only holds the text. */
#ifndef PT_PT_NVRTC_H
#define PT_PT_NVRTC_H

#include <pt/detail/pt_api.h>

PT__BEGIN_DECLS

/** \brief The headers an NVRTC program needs to include <pt/pt_dev.h>.
 *  \param count   set to the number of headers
 *  \param names   set to their include names ("pt/pt_dev.h", "pt/pt_dev_buf.h", ...),
 *                 in the order nvrtcCreateProgram's includeNames takes them
 *  \param sources set to their contents, NUL-terminated, same order
 *  The arrays are static, valid for the life of the process, and end with
 *  a NULL entry after the last header.
 *  \return 0, or PT_EINVAL (-1) if an out-pointer is NULL (nothing is set then). */
PT_EXTERN int pt_nvrtc_headers(int *count, const char *const **names,
                               const char *const **sources);

PT__END_DECLS
#endif
