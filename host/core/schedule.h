/* The step schedule (schedule.c). Not installed. */
#ifndef PT_CORE_SCHEDULE_H
#define PT_CORE_SCHEDULE_H

#include "core/model.h"

#include <stddef.h>

PT__HIDDEN void pt__sched_free(pt_timing *t);
/* 1 when the schedule's current step records (always without a schedule). */
PT__HIDDEN int pt__sched_records(const pt_timing *t);
/* One line about the schedule ("" without one), for the reports. */
PT__HIDDEN void pt__sched_describe(const pt_timing *t, char *buf, size_t n);

#endif
