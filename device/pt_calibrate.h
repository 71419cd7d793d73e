/* The calibration kernel's output (device/calibrate.cu), as the host
 * (host/gpu/calibrate.c) and the tests' fake runtime read it. Plain C and
 * CUDA C++. Not installed. */
#ifndef PT_CALIBRATE_H
#define PT_CALIBRATE_H

#include <pt/pt_dev_buf.h>

enum {
    PT__CAL_TICK = 0,         /* smallest %globaltimer step, ns */
    PT__CAL_CYCLES,           /* clock64 cycles of the timed spin */
    PT__CAL_NS,               /* %globaltimer ns of the timed spin */
    PT__CAL_SMID,             /* where the kernel ran */
    PT__CAL_MARK_CYCLES,      /* cycles the back-to-back marks charged */
    PT__CAL_MARKS,            /* the marks counted */
    PT__CAL_OUT = 8           /* words the host copies back */
};
/* The marks' record (one slot, PT__CAL_MARK_PHASES phases) lies after them. */
#define PT__CAL_MARK_PHASES 4
#define PT__CAL_REC PT__CAL_OUT
#define PT__CAL_WORDS (PT__CAL_REC + PT_DEV_BUF_WORDS(1, PT__CAL_MARK_PHASES, 0))

/* One mark per phase, back to back, the phases in turn so that no phase's
 * sum telescopes into two clock reads: each mark charges the cycles since
 * the previous one, which is one mark's own cost. Between PT_DEV_BEGIN_AT
 * and PT_DEV_END of a PT__CAL_MARK_PHASES-phase aggregate record. */
#define PT__CAL_MARKS()   \
    do {                  \
        PT_DEV_MARK(0);   \
        PT_DEV_MARK(1);   \
        PT_DEV_MARK(2);   \
        PT_DEV_MARK(3);   \
    } while (0)

#ifdef __CUDACC__
#  define PT__CAL_HD static __host__ __device__ __forceinline__
#else
#  define PT__CAL_HD static inline
#endif

/* The cycles the marks charged and the marks counted, summed over the
 * phases of the one-slot record at rec. */
PT__CAL_HD void pt__cal_marks_read(const long long *rec, long long *cycles, long long *hits)
{
    const long long *ph = rec + PT_DEV_HDR + PT_DEV_SLOT_HDR;
    *cycles = *hits = 0;
    for (int p = 0; p < PT__CAL_MARK_PHASES; p++) {
        *cycles += ph[2 * p];
        *hits += ph[2 * p + 1];
    }
}

#endif
