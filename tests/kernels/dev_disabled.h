/* Entry points of tests/kernels/dev_disabled.c. */
#ifndef PT_TEST_DEV_DISABLED_H
#define PT_TEST_DEV_DISABLED_H

#include <pt/pt_dev_buf.h>

/* BEGIN_AT(buf, 0), marks of phases 0, 1 and 99, one in a helper, END, all
 * disabled. */
void pt_test_disabled_run(pt_dev_buf buf);
/* BEGIN(buf), a mark, END, all disabled. */
void pt_test_disabled_run_default(pt_dev_buf buf);
/* PT_DEV_BEGIN_IF and PT_DEV_BEGIN_EVERY, disabled. */
void pt_test_disabled_run_sampled(pt_dev_buf buf, int block);
void pt_test_disabled_run_every(pt_dev_buf buf);

#endif
