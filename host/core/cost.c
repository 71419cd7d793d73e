/* ptkit's own cost, measured on the machine it runs on.
 *
 * A pt_start+pt_stop pair costs a parent more than the child's own time
 * shows: the bookkeeping before the child's clock read and after its stop
 * read lies in the parent's own time, and the part between the two reads
 * in the child's. So the first pt_create() of a process (for each clock,
 * and with and without PT_TRACE, whose stops do more) times, inside an
 * open section of a timing of its own, rounds of empty child pairs with
 * the clock the timings read: per pair, the clock's span of a round is
 * the pair as its parent sees it (pair_ns), and the child's recorded time
 * the part inside it (inside_ns). The medians of 9 rounds of 500 pairs
 * (about 0.2 ms in all) are kept, so a neighbour's burst moves neither.
 *
 * The reports use it where it is sound: a CPU-timed section's self time
 * is net of (pair_ns - inside_ns) per occurrence of each CPU child, since
 * that much of it is ptkit's and not the program's; pt_start_gpu's pairs
 * (CUDA calls, not measured here) and the children's own time are left
 * as measured. A section whose typical occurrence is under 10x pair_ns
 * is marked too short to time. A user clock (pt_clock_set) has no cost
 * known here, and nothing is taken out. */
#include "core/cost.h"
#include "core/timing.h"

#include "core/clock.h"
#include "core/threads.h"
#include "core/tree.h"

#include <pthread.h>
#include <stdlib.h>

#define ROUNDS 9
#define PAIRS 500

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
/* By clock (TSC or not) and PT_TRACE. */
static pt__cost measured[2][2];
/* A fork's child has only the forking thread: another thread of the
 * parent may have held the lock, measuring, which the child then makes
 * anew (and measures again, what it measured not being kept). */
static void cost_child(void)
{
    pthread_mutex_init(&lock, NULL);
}

static void cost_atfork(void)
{
    pthread_atfork(NULL, NULL, cost_child);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(unsigned flags, pt__cost *out)
{
    double outer[ROUNDS], inner[ROUNDS];
    const pt_section *child;
    pt_timing *s;

    s = pt__create("ptkit's own cost", flags & (PT_NO_TSC | PT_TRACE));
    if (!s)
        return;
    pt_start(s, "parent");
    pt_start(s, "child"); /* made, and warm */
    pt_stop(s, "child");
    child = pt__child_find(pt__top(s), "child");
    for (int r = 0; child && r < ROUNDS; r++) {
        double c0 = child->total_ns;
        int64_t a = pt__now(s), b;
        for (int i = 0; i < PAIRS; i++) {
            pt_start(s, "child");
            pt_stop(s, "child");
        }
        b = pt__now(s);
        outer[r] = (double)(b - a) * s->ns_per_tick / PAIRS;
        inner[r] = (child->total_ns - c0) / PAIRS;
    }
    pt_stop(s, "parent");
    if (child) {
        qsort(outer, ROUNDS, sizeof *outer, by_value);
        qsort(inner, ROUNDS, sizeof *inner, by_value);
        out->pair_ns = outer[ROUNDS / 2];
        out->inside_ns = inner[ROUNDS / 2] < out->pair_ns ? inner[ROUNDS / 2] : out->pair_ns;
        out->state = PT__COST_MEASURED;
    }
    pt__destroy(s);
}

void pt__cost_measure(pt_timing *t)
{
    pt__cost *c;

    if (t->clock_kind == PT__CLOCK_USER)
        return;
    c = &measured[t->clock_kind == PT__CLOCK_TSC][(t->flags & PT_TRACE) != 0];
    pthread_once(&atfork_once, cost_atfork);
    pthread_mutex_lock(&lock);
    if (c->state == PT__COST_NONE)
        measure(t->flags, c);
    t->cost = *c;
    pthread_mutex_unlock(&lock);
}

const pt__cost *pt__cost_of(const pt_timing *t)
{
    if (t->cost.state == PT__COST_GIVEN ||
        (t->cost.state == PT__COST_MEASURED && t->clock_kind != PT__CLOCK_USER))
        return &t->cost;
    return NULL;
}

void pt__cost_set(pt_timing *t, double pair_ns, double inside_ns)
{
    t->cost.state = pair_ns > 0 ? PT__COST_GIVEN : PT__COST_NONE;
    t->cost.pair_ns = pair_ns > 0 ? pair_ns : 0;
    t->cost.inside_ns = pair_ns > 0 && inside_ns > 0 ? (inside_ns < pair_ns ? inside_ns : pair_ns)
                                                     : 0;
}

double pt__cost_children(const pt_timing *t, const pt_section *s)
{
    const pt__cost *c = pt__cost_of(t);
    double pairs = 0;

    if (!c || !s->parent || s->kind != PT__K_CPU)
        return 0;
    for (const pt_section *k = s->child; k; k = k->next)
        if (k->kind == PT__K_CPU)
            pairs += (double)k->count;
    return pairs * (c->pair_ns - c->inside_ns);
}
