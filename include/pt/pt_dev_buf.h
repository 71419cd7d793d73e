/** \file pt_dev_buf.h
 *  \brief The device record format, shared by kernels (pt_dev.h), NVRTC
 *  programs and the host library. Everything is 64-bit: no timer wraps at
 *  32 bits, no phase id is narrower than an int64 slot.
 *
 *  The buffer is one array of int64 (`long long`):
 *
 *      [ buffer header: PT_DEV_HDR slots ]
 *      [ slot 0 record ][ slot 1 record ] ... [ slot nslots-1 record ]
 *
 *  A slot is one thread block (or one warp with PT_DEV_PER_WARP). A slot
 *  record is
 *
 *      [ slot header: PT_DEV_SLOT_HDR slots ]
 *      [ cycles[0], hits[0], cycles[1], hits[1], ... ]   nphases pairs
 *      [ trace events: (phase, clock64) pairs ]          trace_cap pairs (trace mode only)
 *
 *  so a record is PT_DEV_SLOT_WORDS(nphases, trace_cap) int64 long.
 *
 *  PT_DEV_END writes the whole slot header and the first PT_DEV_PHASES
 *  (cycles, hits) pairs (fewer when the buffer has fewer phases; the marks
 *  of the missing phases go to BAD_PHASE), DONE last: incremented, so a
 *  slot two blocks wrote reads 2 (the fold says so and leaves it out);
 *  read after the kernel, as ptkit reads it, the record is whole (with
 *  PT_DEV_END_RELEASE the increment has release semantics, for a reader
 *  during the kernel: one that sees DONE == 1 sees the whole record).
 *  The pairs past PT_DEV_PHASES keep what the host wrote (pt_dev_reset()
 *  zeroes them).
 *  A kernel built without trace stores (no PT_DEV_TRACING) writes NEVENTS
 *  and DROPPED as 0; a tracing kernel stores or drops every mark, so on a
 *  trace buffer a record with marks but neither events nor drops came from
 *  a kernel without trace stores, and the fold counts its marks as dropped.
 *
 *  The data pointer is 16-byte aligned (the records are written with
 *  128-bit stores); nphases and trace_cap are below PT_DEV_SHAPE_MAX.
 *  No system header is included: this file is read by NVRTC as it is. */
#ifndef PT_DEV_BUF_H
#define PT_DEV_BUF_H

/* Buffer header, at data[0 .. PT_DEV_HDR-1]. */
#define PT_DEV_MAGIC        0x7074646576627566LL /* "ptdevbuf" */
#define PT_DEV_LAYOUT       3      /* bumped when this format changes */
#define PT_DEV_HDR          8
#define PT_DEV_H_MAGIC      0      /* PT_DEV_MAGIC, written by the host */
#define PT_DEV_H_LAYOUT     1      /* PT_DEV_LAYOUT */
#define PT_DEV_H_NSLOTS     2
#define PT_DEV_H_NPHASES    3
#define PT_DEV_H_TRACE_CAP  4
#define PT_DEV_H_MODE       5      /* PT_DEV_MODE_* the host created it for */
/* The words a kernel writes, last, next to the slots: a reset zeroes
 * them and every slot after them in one span. */
#define PT_DEV_H_BAD_SLOT   6      /* BEGINs whose slot index was out of range (atomic add) */
#define PT_DEV_H_BAD_SLOT_AT 7     /* the largest of those indices, as unsigned (atomic max):
                                      a negative slot reads as itself */

/* Slot header, at the start of each slot record. */
#define PT_DEV_SLOT_HDR     10
#define PT_DEV_S_DONE       0      /* ENDs that wrote this record: 1, or more when several
                                      blocks began at one slot (the fold leaves it out) */
#define PT_DEV_S_SMID       1      /* %smid at BEGIN (host mode: the CPU, or -1) */
#define PT_DEV_S_CLK0       2      /* clock64 at BEGIN */
#define PT_DEV_S_CLK1       3      /* clock64 at END */
#define PT_DEV_S_GT0        4      /* %globaltimer (ns) at BEGIN */
#define PT_DEV_S_GT1        5      /* %globaltimer (ns) at END */
#define PT_DEV_S_BAD_PHASE  6      /* marks whose phase index was out of range */
#define PT_DEV_S_NEVENTS    7      /* trace events written (<= trace_cap) */
#define PT_DEV_S_DROPPED    8      /* trace events past capacity, counted not stored */
#define PT_DEV_S_SMID1      9      /* %smid at END (a block never migrates; a check) */

/** nphases and trace_cap are below this (pt_dev_records_create refuses
 *  more), so that a record's bytes fit in 32 bits on the device. */
#define PT_DEV_SHAPE_MAX    (1 << 26)

/* A trace event's first word is its phase, or for a span's begin or end
 * (PT_DEV_SPAN_BEGIN/END) this code: PT_DEV_EV_SPAN, PT_DEV_EV_SPAN_END
 * at the end, the span's kind in bits 32..47 and its id in bits 0..31. */
#define PT_DEV_EV_SPAN      (1LL << 62)
#define PT_DEV_EV_SPAN_END  (1LL << 61)
#define PT_DEV_EV_SPAN_CODE(kind, id, end) \
    (PT_DEV_EV_SPAN | ((end) ? PT_DEV_EV_SPAN_END : 0LL) | \
     ((long long)((kind) & 0xffff) << 32) | (long long)(unsigned)(id))

#define PT_DEV_MODE_AGGREGATE 0
#define PT_DEV_MODE_TRACE     1

/** Words (int64) in one slot record. */
#define PT_DEV_SLOT_WORDS(nphases, trace_cap) \
    ((long long)PT_DEV_SLOT_HDR + 2LL * (nphases) + 2LL * (trace_cap))
/** Words in a whole buffer. */
#define PT_DEV_BUF_WORDS(nslots, nphases, trace_cap) \
    ((long long)PT_DEV_HDR + (long long)(nslots) * PT_DEV_SLOT_WORDS(nphases, trace_cap))

/** \brief What a kernel receives, by value: where the records go and their
 *  shape. Made by pt_dev_arg() on the host. */
typedef struct pt_dev_buf {
    long long *data;      /**< device (or host-mode) memory, PT_DEV_BUF_WORDS long */
    int nslots;           /**< records in the buffer */
    int nphases;          /**< phases per record */
    int trace_cap;        /**< events per record in trace mode, else 0 */
    int mode;             /**< PT_DEV_MODE_* */
} pt_dev_buf;

#endif
