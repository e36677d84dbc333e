/*
 * One `archcheck check --no-config --format json PATH` process for the benchmarks that time
 * whole processes (bench_network, bench_search): its output discarded, its wall time
 * (CLOCK_MONOTONIC), user + system seconds and peak resident KiB (wait4's rusage). The
 * including file defines _DEFAULT_SOURCE (wait4) before any system header.
 */
#ifndef AC_BENCH_CHECK_PROC_H
#define AC_BENCH_CHECK_PROC_H

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Wall, user + system seconds and (peak_kib non-NULL) the peak KiB of one check of `path`.
 * Returns its exit status, -1 when it did not exit. */
static inline int ac_bench_check_once(const char *bin, const char *path, double *wall, double *cpu,
                                      long *peak_kib)
{
    struct rusage ru;
    struct timespec t0, t1;
    int st = 0;
    pid_t pid;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execl(bin, bin, "check", "--no-config", "--format", "json", path, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    *cpu = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    if (peak_kib != NULL)
        *peak_kib = ru.ru_maxrss;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
