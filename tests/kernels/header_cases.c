/* Header combinations that must build or must stop the build, compiled
 * once per CASE by tests/kernels/kernels.mk; tests/ptgen.c and
 * tests/dev_header.c read the outcomes. Cases 1-5: how a ptgen header and
 * pt_dev.h settle PT_DEV_MAX_PHASES (many20.h and many24.h are ptgen
 * headers of 20 and 24 phases). Cases 6-7: the detail headers refuse to be
 * included directly. Cases 8-11: how they settle PT_DEV_PHASES, whatever
 * the order; case 12: no list leaves the default; case 13: the two trace
 * options together stop the build; case 14: a mark with no BEGIN before it
 * stops the build naming BEGIN; case 15: PT_DEV_PHASES defined after the
 * include builds under -Werror and counts from there on. */
#if CASE == 1 /* a long list first: it raises the maximum to its count */
#  include "many20.h"
#  include <pt/pt_dev.h>
_Static_assert(PT_DEV_MAX_PHASES == 20, "many20.h sets PT_DEV_MAX_PHASES");
#elif CASE == 2 /* pt_dev.h first, at 16: the long list stops the build */
#  include <pt/pt_dev.h>
#  include "many20.h"
#elif CASE == 3 /* two long lists: the second, longer one stops the build */
#  include "many20.h"
#  include "many24.h"
#  include <pt/pt_dev.h>
#elif CASE == 4 /* the user sets the maximum for both lists: it builds */
#  define PT_DEV_MAX_PHASES 24
#  include <pt/pt_dev.h>
#  include "many20.h"
#  include "many24.h"
_Static_assert(PT_DEV_MAX_PHASES == 24, "the user's PT_DEV_MAX_PHASES stays");
#elif CASE == 5 /* a short list under a smaller user maximum stops the build */
#  define PT_DEV_MAX_PHASES 2
#  include <pt/pt_dev.h>
#  include "pt_test_phases.h"
#elif CASE == 6
#  include <pt/detail/pt_dev_impl.h>
#elif CASE == 7
#  include <pt/detail/pt_dev_clock.h>
#elif CASE == 8 /* pt_dev.h first: the list of 5 still sets the phases */
#  include <pt/pt_dev.h>
#  include "pt_test_phases.h"
_Static_assert(PT_DEV_PHASES == 5, "the list after pt_dev.h sets PT_DEV_PHASES");
_Static_assert(PT_DEV_MAX_PHASES == 16, "and leaves the accumulators at 16");
#elif CASE == 9 /* the list first */
#  include "pt_test_phases.h"
#  include <pt/pt_dev.h>
_Static_assert(PT_DEV_PHASES == 5, "the list before pt_dev.h sets PT_DEV_PHASES");
_Static_assert(PT_DEV_MAX_PHASES == 16, "and leaves the accumulators at 16");
#elif CASE == 10 /* two lists: the longer one's count */
#  include "many20.h"
#  include <pt/pt_dev.h>
#  include "pt_test_phases.h"
_Static_assert(PT_DEV_PHASES == 20, "the longer list's count stays");
#elif CASE == 11 /* a count of the user's own, smaller than the list: raised */
#  define PT_DEV_PHASES 3
#  include <pt/pt_dev.h>
#  include "pt_test_phases.h"
_Static_assert(PT_DEV_PHASES == 5, "a list raises a smaller count");
#elif CASE == 12 /* no list: every accumulator */
#  include <pt/pt_dev.h>
_Static_assert(PT_DEV_PHASES == PT_DEV_MAX_PHASES, "the default is PT_DEV_MAX_PHASES");
#elif CASE == 13
#  define PT_DEV_TRACING 1
#  define PT_DEV_NO_TRACE 1
#  include <pt/pt_dev.h>
#elif CASE == 14
#  include <pt/pt_dev.h>
void pt_test_no_begin(void);
void pt_test_no_begin(void)
{
    PT_DEV_MARK(0);
}
#elif CASE == 15
#  include <pt/pt_dev.h>
#  define PT_DEV_PHASES 2
_Static_assert(PT__DEV_N == 2, "the marks that follow use 2 phases");
#endif

#if CASE == 1 || CASE == 4
/* The last phase of the list is recordable. */
long long pt_test_last_phase(pt_dev_buf buf);
long long pt_test_last_phase(pt_dev_buf buf)
{
    PT_DEV_BEGIN_AT(buf, 0);
    PT_DEV_MARK(M20_P19);
    PT_DEV_END(buf);
    return M20_COUNT;
}
#endif
