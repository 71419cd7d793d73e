/* pt_dev.h's host mode built with PT_DEV_DISABLE, for tests/dev_header.c:
 * the macros must leave the buffer untouched. A translation unit of its
 * own, since the option applies to the whole header. */
#define PT_DEV_DISABLE 1
#include <pt/pt_dev.h>

#include "dev_disabled.h"

/* A helper: with the macros gone its state parameter is still used. */
static void helper(pt_dev_state *st)
{
    PT_DEV_MARK_IN(st, 1);
}

void pt_test_disabled_run(pt_dev_buf buf)
{
    /* With the macros gone nothing else reads the buffer. */
    (void)buf;
    PT_DEV_BEGIN_AT(buf, 0);
    PT_DEV_MARK(0);
    PT_DEV_MARK(1);
    PT_DEV_MARK(99);
    helper(PT_DEV_STATE);
    PT_DEV_END(buf);
}

void pt_test_disabled_run_default(pt_dev_buf buf)
{
    (void)buf;
    PT_DEV_BEGIN(buf);
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}

void pt_test_disabled_run_sampled(pt_dev_buf buf, int block)
{
    PT_DEV_BEGIN_IF(buf, block % 2 == 0, block / 2);
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}

void pt_test_disabled_run_every(pt_dev_buf buf)
{
    PT_DEV_BEGIN_EVERY(buf, 4);
    PT_DEV_MARK(0);
    PT_DEV_END(buf);
}
