/* The fold's own thread (fold_worker.c): where a launch's figures are
 * found from its records once they have landed on the host, while the
 * thread that launches goes on. Not installed. */
#ifndef PT_GPU_FOLD_WORKER_H
#define PT_GPU_FOLD_WORKER_H

#include "gpu/state.h"

/* Work for the thread: run(k) once, on it or, where it is not there or
 * the work is waited for before it began, on the caller's. `state` and
 * `next` are the worker's, under its lock. */
typedef struct pt__task {
    struct pt__task *next;
    void (*run)(struct pt__task *k);
    int state;                /* PT__TASK_* */
} pt__task;
enum { PT__TASK_IDLE, PT__TASK_QUEUED, PT__TASK_RUNNING, PT__TASK_DONE, PT__TASK_LOST };

typedef struct pt__worker pt__worker;

/* The thread's name (docs/gpu.md): what top -H, gdb and a trace show. */
#define PT__FOLD_THREAD_NAME "ptkit fold"

/* How t's folds use its thread, PT_FOLD_THREAD read the first time it
 * is asked: "0" never, "1" each fold whose copy has landed, else as
 * needed (pt__fold_judge). */
enum { PT__FOLD_AUTO = 1, PT__FOLD_ALWAYS, PT__FOLD_NEVER };
PT__HIDDEN int pt__fold_mode(pt_timing *t);
/* Whether t's folds whose copies have landed go to its thread now. */
PT__HIDDEN int pt__fold_hand_over(pt_timing *t);
/* Judges, where the launching thread first meets a copy (by its number,
 * pt__stage's copy_no; a ring's batch of copies is one), whether the
 * folds after it go to the thread: they do where, since the copy judged
 * before, the launching thread would have been busy more than four
 * fifths of the time had it also done the thread's work (the time less
 * its waits for copies, plus the thread's busy time), so that the GPU
 * would come to wait for it; at the first copy, where it had landed
 * before it was waited for (the host behind). */
PT__HIDDEN void pt__fold_judge(pt_timing *t, long copy_no, int landed);
/* t's fold thread, started the first time it is asked for; NULL where
 * there is none: PT_FOLD_THREAD=0 in the environment when it was first
 * asked for, a thread that could not be started, or a child process
 * forked since (the thread stayed in the parent). */
PT__HIDDEN pt__worker *pt__fold_worker(pt_timing *t);
/* Hands k to the thread, which runs the tasks in the order handed;
 * each must be independent of the others. */
PT__HIDDEN void pt__worker_submit(pt__worker *w, pt__task *k);
/* Returns once k has run: at once where it has; on this thread where it
 * had not begun; else once the thread has run it, this thread meanwhile
 * running the tasks handed over after k (tasks are independent).
 * PT__TASK_LOST where a
 * fork left it half run in the parent's thread (k must not be run again:
 * it may have changed what it reads); else PT__TASK_DONE. */
PT__HIDDEN int pt__worker_wait(pt__worker *w, pt__task *k);
/* Takes k back where it has not begun, else waits until it has run:
 * afterwards the thread holds nothing of k's. */
PT__HIDDEN void pt__worker_cancel(pt__worker *w, pt__task *k);
/* Whether k has run, asked without waiting (in a forked child, 1: its
 * wait runs it, or says it lost). */
PT__HIDDEN int pt__worker_ran(pt__worker *w, pt__task *k);
/* The tasks handed over so far that the thread ran, and that a wait ran
 * on the waiting thread, and the thread's time running them, ns (0
 * without a thread). */
PT__HIDDEN void pt__worker_counts(pt__worker *w, long *on_thread, long *on_caller,
                                  int64_t *busy);
/* Stops the thread once it has run what it holds, and frees it. */
PT__HIDDEN void pt__worker_free(pt__worker *w);

#endif
