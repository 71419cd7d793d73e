/* The CPU time of this process's threads of one name (their
 * /proc/self/task/TID/comm), for the benchmarks that say which thread a
 * host's work runs on (the fold's own thread is "ptkit fold") and for
 * the test that it has that name. Linux; C and C++. */
#ifndef PT_TESTS_THREAD_CPU_H
#define PT_TESTS_THREAD_CPU_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The summed CPU time in ns of the threads named `name` (*count of them,
 * where count is not NULL): each one's schedstat (its first field, ns
 * on a CPU), else its stat's utime + stime (clock ticks). -1 where
 * /proc cannot be read. O(threads). */
static inline long long threads_cpu_ns(const char *name, int *count)
{
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    long long sum = 0;
    long tick = sysconf(_SC_CLK_TCK);
    int n = 0;

    if (!dir)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        char path[320], comm[64] = "";
        unsigned long long ns = 0, ut = 0, st = 0;
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        if (!(f = fopen(path, "r")))
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = '\0';
        fclose(f);
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, name) != 0)
            continue;
        n++;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        if ((f = fopen(path, "r")) != NULL && fscanf(f, "%llu", &ns) == 1) {
            sum += (long long)ns;
        } else {
            /* stat: "tid (comm) state ..." with utime and stime the 14th
             * and 15th fields; comm may hold spaces, so after its ')'. */
            char line[1024], *p;
            if (f)
                fclose(f);
            snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
            f = fopen(path, "r");
            if (f && fgets(line, sizeof line, f) && (p = strrchr(line, ')')) != NULL &&
                sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                       &st) == 2 && tick > 0)
                sum += (long long)((ut + st) * (1000000000ULL / (unsigned long long)tick));
        }
        if (f)
            fclose(f);
    }
    closedir(dir);
    if (count)
        *count = n;
    return sum;
}

#endif
