/* The gate between a report and the threads that time (gate.h).
 *
 * A thread's side is a store, a compiler barrier and a load: busy = 1,
 * then gate. The report's side is the costly one: gate = 1, then
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full memory
 * barrier on every CPU running a thread of this process, then busy of
 * each thread. Either a thread's load of the gate comes after that
 * barrier and sees it closed, or its busy store came before and the
 * report sees it: the report never reads a tree being written. Where
 * membarrier is not available (an old kernel, a sandbox, valgrind), the
 * threads fence on every entry instead (pt__gate_fenced).
 *
 * A thread that finds the gate closed steps back (busy = 0) and waits on
 * the report's lock. With no thread but the reporting one, a report costs
 * a lock and no system call: a thread that starts later takes t->lock to
 * join, after the report took it, and so sees the gate closed. */
#define _GNU_SOURCE /* syscall */
#include "core/gate.h"

#include "core/errors.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int pt__gate_fenced = 1;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void gate_once(void)
{
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        pt__gate_fenced = 0;
}

void pt__gate_init(void)
{
    pthread_once(&once, gate_once);
}

void pt__enter_slow(pt_timing *t, pt__thr *r)
{
    for (;;) {
        /* A report's own thread (its error callback timing, say) goes on:
         * the report waits for no one there. The lock is recursive, so
         * only the reporting thread takes it while a report holds it. */
        if (pthread_mutex_trylock(&t->gate_lock) == 0) {
            int mine = t->gate_depth > 0;
            pthread_mutex_unlock(&t->gate_lock);
            if (mine)
                return;
        }
        atomic_store_explicit(&r->busy, 0, memory_order_release);
        pthread_mutex_lock(&t->gate_lock); /* until the report ends */
        pthread_mutex_unlock(&t->gate_lock);
        atomic_store_explicit(&r->busy, 1, PT__GATE_ORDER);
        PT__GATE_FENCE();
        if (!atomic_load_explicit(&t->gate, PT__GATE_LOAD))
            return;
    }
}

/* Any thread but the caller busy in its tree; under t->lock. */
static int any_busy(pt_timing *t, const struct pt__id *me, int *others)
{
    int busy = 0;

    *others = 0;
    for (pt__thr *r = &t->main; r; r = r == &t->main ? t->threads : r->next) {
        if (r->self == me && me)
            continue;
        (*others)++;
        busy |= atomic_load_explicit(&r->busy, memory_order_seq_cst);
    }
    return busy;
}

void pt__read_begin(pt_timing *t)
{
    const struct pt__id *me = pt__id_self();
    int others, busy, fenced = 0;

    /* An error while the trees are read calls back at pt__read_end. */
    pt__defer_begin();
    pthread_mutex_lock(&t->gate_lock);
    if (t->gate_depth++ > 0)
        return;
    t->gate_owner = me;
    atomic_store_explicit(&t->gate, 1, memory_order_seq_cst);
    for (;;) {
        pthread_mutex_lock(&t->lock);
        busy = any_busy(t, me, &others);
        pthread_mutex_unlock(&t->lock);
        if (others == 0)
            return; /* a later thread joins under t->lock: it sees the gate */
        if (!fenced) {
            /* Every thread sees the gate now, or is seen busy below. */
            if (pt__gate_fenced)
                PT__GATE_FENCE();
            else
                syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
            fenced = 1;
            continue;
        }
        if (!busy)
            return;
        sched_yield();
    }
}

void pt__read_end(pt_timing *t)
{
    if (--t->gate_depth == 0) {
        t->gate_owner = NULL;
        atomic_store_explicit(&t->gate, 0, memory_order_release);
    }
    pthread_mutex_unlock(&t->gate_lock);
    pt__defer_end();
}
