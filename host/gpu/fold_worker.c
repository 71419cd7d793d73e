/* The fold's own thread.
 *
 * A fold finds its figures in the records (fold_figure.c: some 900
 * instructions a block of three phases) and then puts them in the tree
 * (fold_apply.c: a few thousand a fold). On the thread that launches, the
 * first part set the pace of a CUDA graph's replays on an H200's host:
 * three folds of 132 blocks took 37 to 58 us of a 64 us replay. So each
 * timing that folds device records has one thread of its own, started
 * with its first such fold, that finds the figures of each fold whose
 * records have landed (the queue hands them over in its order, queue.c),
 * while the thread that launches goes on; that thread later puts them in
 * the tree in the queue's order, as before, so the tree stays its own
 * and nothing else of the timing is shared. A fold wanted before its
 * figures are found (a report, a wait for a ring's set) waits for them,
 * or finds them itself where the thread has not begun them.
 *
 * A fold on the thread costs more CPU than on the launching one (its
 * records and figures cross between cores; the threads wake each
 * other), so by default it goes there only as the launching thread
 * needs (pt__fold_judge); PT_FOLD_THREAD=1 in the environment hands over
 * every fold whose copy has landed, PT_FOLD_THREAD=0 keeps every fold on
 * the timing's thread. The thread is named "ptkit fold" (what top -H,
 * gdb and Nsight Systems show), takes no signal (it is started with
 * every one blocked) and runs nothing of the program's. A child forked
 * since has no such thread: its folds run on its own thread, and one
 * the parent's thread was in the middle of at the fork is lost (said by
 * its fold). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "gpu/fold_worker.h"

#include "core/clock.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct pt__worker {
    pthread_mutex_t lock;
    pthread_cond_t work;      /* a task was handed over, or the thread is to stop */
    pthread_cond_t ran;       /* a task has run */
    pt__task *head, *tail;    /* handed over, not begun */
    int idle;                 /* the thread waits for work (a hand-over wakes it once) */
    long on_thread, on_caller; /* tasks run by the thread, and by the thread waiting */
    int64_t busy;             /* ns the thread spent running tasks */
    int stop;
    unsigned gen;             /* forks when it was started: another in a child forked since */
    pthread_t thread;
};

/* The forks of this process so far, counted in each child (getpid() is
 * a system call each time, as often as a fold asks). */
static atomic_uint forks;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void forked(void)
{
    atomic_fetch_add(&forks, 1);
}

static void count_forks(void)
{
    pthread_atfork(NULL, NULL, forked);
}

/* Whether w's thread runs in this process (not in a parent forked from). */
static int here(const pt__worker *w)
{
    return w && w->gen == atomic_load_explicit(&forks, memory_order_relaxed);
}

static void *loop(void *arg)
{
    pt__worker *w = arg;

    (void)pthread_setname_np(pthread_self(), PT__FOLD_THREAD_NAME);
    pthread_mutex_lock(&w->lock);
    for (;;) {
        pt__task *k;
        int64_t took;
        while (!w->head && !w->stop) {
            w->idle = 1;
            pthread_cond_wait(&w->work, &w->lock);
        }
        w->idle = 0;
        if (!(k = w->head))
            break;
        if (!(w->head = k->next))
            w->tail = NULL;
        k->state = PT__TASK_RUNNING;
        pthread_mutex_unlock(&w->lock);
        took = pt__mono_ns();
        k->run(k);
        took = pt__mono_ns() - took;
        pthread_mutex_lock(&w->lock);
        k->state = PT__TASK_DONE; /* the waiter may free k from here on */
        w->on_thread++;
        w->busy += took;
        pthread_cond_broadcast(&w->ran);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static pt__worker *start(void)
{
    pt__worker *w = calloc(1, sizeof *w);
    sigset_t all, old;
    int e;

    if (!w)
        return NULL;
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        return NULL;
    }
    if (pthread_cond_init(&w->work, NULL) != 0 || pthread_cond_init(&w->ran, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    pthread_once(&fork_once, count_forks);
    w->gen = atomic_load(&forks);
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    e = pthread_create(&w->thread, NULL, loop, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e != 0) {
        pthread_cond_destroy(&w->work);
        pthread_cond_destroy(&w->ran);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

int pt__fold_mode(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);

    if (!g)
        return PT__FOLD_NEVER;
    if (!g->fold_mode) {
        const char *env = getenv("PT_FOLD_THREAD");
        g->fold_mode = !env ? PT__FOLD_AUTO
                       : strcmp(env, "0") == 0 ? PT__FOLD_NEVER
                       : strcmp(env, "1") == 0 ? PT__FOLD_ALWAYS : PT__FOLD_AUTO;
    }
    return g->fold_mode;
}

int pt__fold_hand_over(pt_timing *t)
{
    int mode = pt__fold_mode(t);

    return mode == PT__FOLD_ALWAYS || (mode == PT__FOLD_AUTO && pt__gpu_of(t)->hand_over);
}

/* The launching thread keeps the folds while, with them, it would be
 * busy at most four fifths of the time: beyond, only the GPU's queue
 * stands between the GPU and a wait for the host, and the host's jitter
 * (a page fault, a thread of the program's) would make it wait. What is
 * judged is the thread's load while it launches: a drain (pt_sync, a
 * report) launches nothing, and keeps the judgement it found (its copies
 * back, a set's at a time, land as fast as the GPU runs, so a backlog
 * of them would read as a thread busy all the time). */
#define KEEP_BUSY_NUM 4
#define KEEP_BUSY_DEN 5

void pt__fold_judge(pt_timing *t, long copy_no, int landed)
{
    pt__gpu *g = pt__gpu_of(t);
    int64_t busy = 0, now, cycle;
    long on_thread, on_caller;

    if (!g || !copy_no || copy_no == g->judged || pt__fold_mode(t) != PT__FOLD_AUTO ||
        g->draining)
        return;
    now = pt__mono_ns();
    if (g->worker)
        pt__worker_counts(g->worker, &on_thread, &on_caller, &busy);
    cycle = now - g->judged_at;
    if (!g->judged_at)
        g->hand_over = landed;
    else
        g->hand_over = (cycle - (g->waited - g->waited_at) + (busy - g->busy_at)) *
                       KEEP_BUSY_DEN > cycle * KEEP_BUSY_NUM;
    g->judged = copy_no;
    g->judged_at = now;
    g->waited_at = g->waited;
    g->busy_at = busy;
}

pt__worker *pt__fold_worker(pt_timing *t)
{
    pt__gpu *g = pt__gpu_of(t);

    if (!g)
        return NULL;
    if (g->worker)
        return here(g->worker) ? g->worker : NULL;
    if (g->worker_tried)
        return NULL;
    g->worker_tried = 1;
    if (pt__fold_mode(t) == PT__FOLD_NEVER)
        return NULL;
    return g->worker = start();
}

void pt__worker_submit(pt__worker *w, pt__task *k)
{
    k->next = NULL;
    if (!here(w)) {
        k->state = PT__TASK_RUNNING;
        k->run(k);
        k->state = PT__TASK_DONE;
        return;
    }
    pthread_mutex_lock(&w->lock);
    k->state = PT__TASK_QUEUED;
    if (w->tail)
        w->tail->next = k;
    else
        w->head = k;
    w->tail = k;
    /* One wake for the tasks handed over while it sleeps: each is a
     * system call, as dear as a fold of a few blocks. */
    if (w->idle) {
        w->idle = 0;
        pthread_cond_signal(&w->work);
    }
    pthread_mutex_unlock(&w->lock);
}

/* Takes k, not begun, out of the thread's list: O(tasks handed over). */
static void unlink_task(pt__worker *w, pt__task *k)
{
    pt__task *prev = NULL;

    for (pt__task *q = w->head; q; prev = q, q = q->next) {
        if (q != k)
            continue;
        if (prev)
            prev->next = k->next;
        else
            w->head = k->next;
        if (w->tail == k)
            w->tail = prev;
        return;
    }
}

int pt__worker_wait(pt__worker *w, pt__task *k)
{
    if (!here(w)) {
        /* A child's: the thread (and maybe its lock) stayed in the parent. */
        if (k->state == PT__TASK_QUEUED) {
            k->state = PT__TASK_RUNNING;
            k->run(k);
            k->state = PT__TASK_DONE;
        } else if (k->state == PT__TASK_RUNNING) {
            k->state = PT__TASK_LOST;
        }
        return k->state;
    }
    /* While the thread runs k, this one runs the tasks handed over after
     * it rather than sleep: two threads find the figures then (each
     * task's are its own). */
    pthread_mutex_lock(&w->lock);
    for (;;) {
        pt__task *h = k->state == PT__TASK_QUEUED ? k
                      : k->state == PT__TASK_RUNNING ? w->head : NULL;
        if (k->state != PT__TASK_QUEUED && k->state != PT__TASK_RUNNING)
            break;
        if (!h) {
            pthread_cond_wait(&w->ran, &w->lock);
            continue;
        }
        unlink_task(w, h);
        h->state = PT__TASK_RUNNING;
        pthread_mutex_unlock(&w->lock);
        h->run(h);
        pthread_mutex_lock(&w->lock);
        h->state = PT__TASK_DONE;
        w->on_caller++;
    }
    pthread_mutex_unlock(&w->lock);
    return k->state;
}

void pt__worker_cancel(pt__worker *w, pt__task *k)
{
    if (!here(w)) {
        if (k->state == PT__TASK_QUEUED)
            k->state = PT__TASK_DONE;
        return;
    }
    pthread_mutex_lock(&w->lock);
    if (k->state == PT__TASK_QUEUED) {
        unlink_task(w, k);
        k->state = PT__TASK_DONE;
    }
    while (k->state == PT__TASK_RUNNING)
        pthread_cond_wait(&w->ran, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

int pt__worker_ran(pt__worker *w, pt__task *k)
{
    int state;

    if (!here(w))
        return 1;
    pthread_mutex_lock(&w->lock);
    state = k->state;
    pthread_mutex_unlock(&w->lock);
    return state == PT__TASK_DONE;
}

void pt__worker_counts(pt__worker *w, long *on_thread, long *on_caller, int64_t *busy)
{
    *on_thread = *on_caller = 0;
    *busy = 0;
    if (!here(w))
        return;
    pthread_mutex_lock(&w->lock);
    *on_thread = w->on_thread;
    *on_caller = w->on_caller;
    *busy = w->busy;
    pthread_mutex_unlock(&w->lock);
}

void pt__worker_free(pt__worker *w)
{
    if (!w)
        return;
    if (!here(w)) {
        free(w); /* a child's copy: no thread to stop, its lock maybe held */
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->ran);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
