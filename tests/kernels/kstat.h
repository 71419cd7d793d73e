/* What a kernel compiled to, read from the files nvcc leaves: ptxas -v's
 * report (registers, stack, spills), the cubin (code size) and the PTX.
 * Shared by the compile checks (tests/dev_compile.c) and bench-static
 * (tests/bench/bench_static.c), which read the files with tests/common.h's
 * test_read_file(). Plain C11, no CUDA needed. */
#ifndef PT_TEST_KSTAT_H
#define PT_TEST_KSTAT_H

#include <stddef.h>

/** One kernel's line of a ptxas -v report. */
typedef struct kstat_regs {
    int regs;   /**< registers per thread */
    int stack;  /**< bytes of stack frame */
    int spill_stores, spill_loads;
    int smem;   /**< bytes of static shared memory (0 when the report names none) */
} kstat_regs;

/** \brief The figures ptxas -v gave for entry `kernel` in `report`.
 *  \return 0, or -1 when the report has no such entry or no figures. */
int kstat_ptxas(const char *report, const char *kernel, kstat_regs *out);

/** \brief As kstat_ptxas, for the entry compiled for `arch` ("sm_90") in a
 *  report of several architectures (nvcc -Xptxas -v with a -gencode each). */
int kstat_ptxas_arch(const char *report, const char *kernel, const char *arch, kstat_regs *out);

/** \brief The entry functions named in a ptxas -v report, one per call:
 *  `*pos` starts at 0. \return 1 with the name in name[size], 0 at the end. */
int kstat_ptxas_next(const char *report, size_t *pos, char *name, size_t size);

/** \brief Instructions in the cubin's .text.<kernel> section, the padding
 *  after the last instruction (NOPs and the branch to itself) left out.
 *  sm_70 and later: 16 bytes per instruction.
 *  \return the count, or -1 if the file or the section is missing. */
long kstat_code(const char *cubin_path, const char *kernel);

/** \brief The bytes of the cubin's .text.<kernel> section, for a
 *  disassembler. \return a malloc'd copy (size in *n), or NULL. */
unsigned char *kstat_text(const char *cubin_path, const char *kernel, size_t *n);

/** \brief The PTX of entry `kernel` (from ".entry kernel" to the next
 *  entry or the end), or NULL. Points into ptx; length in *len. */
const char *kstat_ptx_entry(const char *ptx, const char *kernel, size_t *len);

/** \brief Occurrences of `needle` in s[0..len). */
int kstat_count(const char *s, size_t len, const char *needle);

/** \brief Instructions in PTX text s[0..len) whose opcode starts with
 *  `prefix` (e.g. "st." or "st.global"), predicated or not. */
int kstat_ptx_ops(const char *s, size_t len, const char *prefix);

/** \brief The PTX without the lines that name the compiler or the source
 *  file (comments, .file), which differ between two compiles of equal
 *  code. \return a malloc'd copy, or NULL. */
char *kstat_ptx_code(const char *ptx);

/** \brief The floating-point arithmetic of PTX text ptx[0..len), one
 *  opcode a line in program order (fma.rn.f32, mul.f32, ex2.approx.f32,
 *  cvt.rn.f32.s32, ...): what decides the bits a kernel computes, without
 *  the registers, loads and stores around it. \return malloc'd, or NULL. */
char *kstat_ptx_float_ops(const char *ptx, size_t len);

#endif
