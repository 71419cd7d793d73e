/* The top of the library: the public life cycle of a timing, which
 * composes the layers below it. pt_create() makes a timing with the core
 * (core/timing.c), whose create hooks let the GPU side attach itself, and
 * reads PT_OUTPUT (report/output.c); pt_destroy() writes those outputs
 * from the whole run, then frees the timing; pt_default() is the
 * process-wide timing, whose outputs are written at exit. Below this
 * layer nothing calls a writer or the public life cycle. */
#include "core/cost.h"
#include "core/errors.h"
#include "core/timing.h"
#include "report/output.h"

#include <pthread.h>
#include <stdlib.h>

/* A timing with its cost measured and the flags PT_OUTPUT asks for; its
 * files not claimed yet (*output: what to claim). */
static pt_timing *create(const char *name, unsigned flags, const char **output)
{
    pt_timing *t;

    *output = NULL;
    flags |= pt__output_flags(output);
    t = pt__create(name, flags);
    if (!t)
        return NULL;
    /* Before any section starts, so none holds the time it takes. */
    pt__cost_measure(t);
    return t;
}

pt_timing *pt_create(const char *name, unsigned flags)
{
    const char *output;
    pt_timing *t = create(name, flags, &output);

    if (t)
        pt__output_init(t, output);
    return t;
}

static void forget_default(pt_timing *t);

void pt_destroy(pt_timing *t)
{
    if (!t || pt__refused_in_callback(t, PT__CB_ERROR | PT__CB_LINE, "pt_destroy"))
        return;
    /* The outputs PT_OUTPUT asked for, from the whole run, first. */
    pt__output_write(t);
    forget_default(t);
    pt__destroy(t);
}

static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;
static pt_timing *default_timing;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

/* A fork's child has only the forking thread: another thread of the
 * parent may have held the lock, which the child then makes anew. */
static void default_child(void)
{
    pthread_mutex_init(&default_lock, NULL);
}

static void default_atfork(void)
{
    pthread_atfork(NULL, NULL, default_child);
}

/* The default is made outside the lock: pt_create() may itself make and
 * destroy a timing (its cost measured on the first), whose pt_destroy()
 * takes the lock. Two threads asking at once may both make one; the
 * second is destroyed. Only the one kept claims PT_OUTPUT's files, under
 * the lock (the claims' lock is taken inside it, never the other way),
 * so the other says nothing of them (it said "another timing's file"). */
pt_timing *pt_default(void)
{
    const char *output;
    pt_timing *t, *made;
    pthread_once(&default_once, default_atfork);
    pthread_mutex_lock(&default_lock);
    t = default_timing;
    pthread_mutex_unlock(&default_lock);
    if (t)
        return t;
    made = create("ptkit", PT_CPU, &output);
    pthread_mutex_lock(&default_lock);
    if (!default_timing && made) {
        pt__output_init(made, output);
        default_timing = made;
        made = NULL;
    }
    t = default_timing;
    pthread_mutex_unlock(&default_lock);
    pt_destroy(made); /* never used, and claimed nothing */
    return t;
}

/* pt_destroy(pt_default()) must not leave a dangling default. */
static void forget_default(pt_timing *t)
{
    pthread_mutex_lock(&default_lock);
    if (default_timing == t)
        default_timing = NULL;
    pthread_mutex_unlock(&default_lock);
}

/* At exit every timing never destroyed writes its PT_OUTPUT, the default
 * one too. None is freed: threads the program left running (detached,
 * say) may still be timing into them while the process ends, and freeing
 * the default under them crashed them; the default stays reachable (leak
 * checkers do not count it). */
__attribute__((destructor)) static void outputs_at_exit(void)
{
    pt__output_write_all();
}
