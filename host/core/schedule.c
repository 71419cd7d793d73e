/* The step schedule: torch.profiler.schedule's wait, warmup, active and
 * repeat over the steps that pt_step() ends.
 *
 * Step n (counted from 0 at pt_schedule_set()) lies at position n % cycle of
 * its cycle, cycle = wait + warmup + active: the first `wait` positions
 * are skipped, the next `warmup` run unrecorded, the last `active` are
 * recorded; after `repeat` cycles (unless repeat is 0) nothing more is.
 * Warmup steps record nothing: they exist so that what they warm (caches,
 * lazy initialization, the event pool) is warm when recording starts.
 *
 * Outside recorded steps the timing is disabled through the same `enabled`
 * word as pt_disable(), so the hot path tests nothing more, and ghost
 * frames keep starts and stops paired across step boundaries: a frame
 * remembers whether it was real when it started, and its stop does what
 * its start did. */
#include "core/schedule.h"

#include "core/errors.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct pt__sched {
    unsigned wait, warmup, active, repeat;
    uint64_t steps, recorded;
    int recording;
} pt__sched;

static int records_at(const pt__sched *s, uint64_t n)
{
    uint64_t cycle = (uint64_t)s->wait + s->warmup + s->active;
    if (s->repeat && n / cycle >= s->repeat)
        return 0;
    return n % cycle >= (uint64_t)s->wait + s->warmup;
}

int pt__sched_records(const pt_timing *t)
{
    return t->sched ? t->sched->recording : 1;
}

static void apply(pt_timing *t)
{
    t->enabled = !t->user_off && pt__sched_records(t);
}

int pt_schedule_set(pt_timing *t, unsigned wait, unsigned warmup, unsigned active, unsigned repeat)
{
    if (!t)
        return 0;
    if (active == 0)
        return pt__fail(t, PT_EINVAL, "pt_schedule_set: active must be at least 1");
    if (!t->sched && !(t->sched = calloc(1, sizeof *t->sched)))
        return pt__fail(t, PT_ENOMEM, "pt_schedule_set: out of memory");
    *t->sched = (pt__sched){ wait, warmup, active, repeat, 0, 0, 0 };
    t->sched->recording = records_at(t->sched, 0);
    apply(t);
    return 0;
}

int pt_step(pt_timing *t)
{
    pt__sched *s;

    if (!t || !(s = t->sched))
        return 0;
    if (s->recording)
        s->recorded++;
    s->steps++;
    s->recording = records_at(s, s->steps);
    apply(t);
    return 0;
}

int pt_schedule_get(const pt_timing *t, pt_schedule_info *out)
{
    const pt__sched *s;

    if (!out)
        return PT_EINVAL;
    *out = (pt_schedule_info){ 0 };
    if (!t || !(s = t->sched))
        return 0;
    out->on = 1;
    out->wait = s->wait;
    out->warmup = s->warmup;
    out->active = s->active;
    out->repeat = s->repeat;
    out->steps = s->steps;
    out->recorded = s->recorded;
    out->recording = s->recording;
    return 0;
}

void pt__sched_describe(const pt_timing *t, char *buf, size_t n)
{
    const pt__sched *s = t ? t->sched : NULL;

    if (!n)
        return;
    buf[0] = '\0';
    if (s)
        snprintf(buf, n, "schedule wait=%u warmup=%u active=%u repeat=%u: %llu of %llu steps recorded",
                 s->wait, s->warmup, s->active, s->repeat, (unsigned long long)s->recorded,
                 (unsigned long long)s->steps);
}

void pt__sched_free(pt_timing *t)
{
    free(t->sched);
    t->sched = NULL;
}

/* The previous name, kept for one release (pt.h). */
int pt_schedule(pt_timing *t, unsigned wait, unsigned warmup, unsigned active, unsigned repeat)
{
    return pt_schedule_set(t, wait, warmup, active, repeat);
}
