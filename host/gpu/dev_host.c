/* The host clocks of pt_dev.h's host mode: what "%globaltimer" and "%smid"
 * read when the phase macros run on the CPU. They live in the library, not
 * in the header, so the header needs no system include in any mode. */
#define _GNU_SOURCE 1 /* sched_getcpu */
#include <pt/pt_dev.h>

#include <sched.h>
#include <time.h>

long long pt_dev_host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec;
}

int pt_dev_host_cpu(void)
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}
