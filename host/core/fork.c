/* fork(2) while threads time.
 *
 * A child has one thread, the one that called fork. Any lock another
 * thread of the parent held at that moment stays held in the child, and a
 * tree another thread was writing stays half written: the child's first
 * report would wait for ever on a thread it does not have. So, before the
 * fork (pthread_atfork's prepare), every live timing is read-locked as a
 * report locks it (gate.c): its gate closed, no thread writing a tree,
 * its locks held by the forking thread. After it the parent lets its
 * threads go on; the child marks the parent's other threads exited (their
 * recorders stay, and their open sections show as open, as a thread's
 * that ended) and makes the locks anew, open (its one thread is not the
 * owner a recursive mutex remembers: the thread ids differ). The child
 * then times and reports as any process does.
 * What needs a GPU stays the creating thread's: in a child forked by
 * another thread it is PT_ETHREAD, described. */
#include "core/fork.h"

#include "core/errors.h"
#include "core/gate.h"

#include <pthread.h>
#include <stdlib.h>

/* The live timings, under reg_lock. */
typedef struct live {
    pt_timing *t;
    struct live *next;
} live;
static live *timings;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void prepare(void)
{
    pthread_mutex_lock(&reg_lock);
    for (live *l = timings; l; l = l->next) {
        pt__read_begin(l->t);
        pthread_mutex_lock(&l->t->lock);
        pthread_mutex_lock(&l->t->err_lock);
    }
}

static void release(void)
{
    for (live *l = timings; l; l = l->next) {
        pthread_mutex_unlock(&l->t->err_lock);
        pthread_mutex_unlock(&l->t->lock);
        pt__read_end(l->t);
    }
    pthread_mutex_unlock(&reg_lock);
}

static void child(void)
{
    const struct pt__id *me = pt__id_self();
    pthread_mutexattr_t rec;

    pthread_mutexattr_init(&rec);
    pthread_mutexattr_settype(&rec, PTHREAD_MUTEX_RECURSIVE);
    for (live *l = timings; l; l = l->next) {
        pt_timing *t = l->t;
        for (pt__thr *r = &t->main; r; r = r == &t->main ? t->threads : r->next) {
            if (r->self && r->self != me) {
                atomic_store(&r->self->dead, 1);
                atomic_store(&r->busy, 0);
            }
        }
        pthread_mutex_init(&t->err_lock, NULL);
        pthread_mutex_init(&t->lock, NULL);
        pthread_mutex_init(&t->gate_lock, &rec);
        t->gate_depth = 0;
        t->gate_owner = NULL;
        atomic_store(&t->gate, 0);
        pt__defer_end(); /* prepare's pt__read_begin() */
    }
    pthread_mutexattr_destroy(&rec);
    pthread_mutex_init(&reg_lock, NULL);
}

static void install(void)
{
    pthread_atfork(prepare, release, child);
}

int pt__fork_track(pt_timing *t)
{
    live *l = malloc(sizeof *l);
    if (!l)
        return PT_ENOMEM;
    pthread_once(&once, install);
    l->t = t;
    pthread_mutex_lock(&reg_lock);
    l->next = timings;
    timings = l;
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

void pt__fork_untrack(pt_timing *t)
{
    live *gone = NULL;
    pthread_mutex_lock(&reg_lock);
    for (live **p = &timings; *p; p = &(*p)->next) {
        if ((*p)->t == t) {
            gone = *p;
            *p = gone->next;
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    free(gone);
}
