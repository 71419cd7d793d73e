"""The device record format, read from the pt_dev_buf.h shipped with the
package, so Python and the kernels share one definition: HDR, SLOT_HDR,
H_MAGIC ... H_MODE (buffer header words), S_DONE ... S_SMID1 (slot header
words), MAGIC, LAYOUT, MODE_AGGREGATE, MODE_TRACE. A record is SLOT_HDR
words, then (cycles, hits) per phase, then trace_cap (phase, clock) pairs."""

import os
import re

from ._include import get_include


def _read():
    path = os.path.join(get_include(), "pt", "pt_dev_buf.h")
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define PT_DEV_([A-Z0-9_]+)\s+(-?(?:0x[0-9a-fA-F]+|\d+))(?:LL)?\b", line)
            if m:
                values[m.group(1)] = int(m.group(2), 0)
    return values


globals().update(_read())


def slot_words(nphases, trace_cap=0):
    """Words (int64) in one slot record: PT_DEV_SLOT_WORDS."""
    return SLOT_HDR + 2 * nphases + 2 * trace_cap  # noqa: F821 (read from the header)
