/*
 * Benchmark: one evaluation of the fluid transient of samples/serverless-pipeline.xml with a
 * reused workspace (ac_transient_new once, ac_transient_eval many times; no fault plan), the
 * median over N evaluations (default 200; floor 8 ms, goal 1 ms), the allocations an
 * evaluation makes after the first (must be 0: counted by interposing malloc, calloc and
 * realloc in this program, which sees the libraries' too: CVODE's, KLU's), the sparse LU
 * factorisations of CVODE's iteration matrix per evaluation (KLU's klu_l_factor and
 * klu_l_refactor, interposed and counted), and two workspaces on two threads
 * (throughput at least 1.8 times one thread's). Also the one-shot ac_transient_run, the
 * first evaluation (which settles the start state), and the median under N random fault
 * plans (1 to 3 faults: delay, fail-prob, cold-start on the functions, capacity-loss on the
 * gateway, windows of 10 s to 2 min anywhere in the horizon; a fixed seed). Exit 1 when a
 * floor is missed.
 *
 *   bench_transient ROOT [N]     ROOT: the source tree (for samples/)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_errno.h>
#include <klu.h>

#include "archcheck/parser.h"
#include "archcheck/transient.h"

/* ---- counting allocator (glibc's own under it) ---- */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t k);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

static atomic_size_t g_allocs, g_lu;

void *malloc(size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t k)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_calloc(n, k);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_realloc(p, n);
}

/* KLU's own, set by main before any thread starts. */
static klu_l_numeric *(*g_real_factor)(SuiteSparse_long *, SuiteSparse_long *, double *,
                                       klu_l_symbolic *, klu_l_common *);
static SuiteSparse_long (*g_real_refactor)(SuiteSparse_long *, SuiteSparse_long *, double *,
                                           klu_l_symbolic *, klu_l_numeric *, klu_l_common *);

/* KLU's factorisations (called by SUNDIALS' KLU solver through the PLT): counted. */
klu_l_numeric *klu_l_factor(SuiteSparse_long *Ap, SuiteSparse_long *Ai, double *Ax,
                            klu_l_symbolic *S, klu_l_common *C)
{
    atomic_fetch_add(&g_lu, 1);
    return g_real_factor(Ap, Ai, Ax, S, C);
}

SuiteSparse_long klu_l_refactor(SuiteSparse_long *Ap, SuiteSparse_long *Ai, double *Ax,
                                klu_l_symbolic *S, klu_l_numeric *N, klu_l_common *C)
{
    atomic_fetch_add(&g_lu, 1);
    return g_real_refactor(Ap, Ai, Ax, S, N, C);
}

void free(void *p)
{
    __libc_free(p);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A deterministic generator for the plans (64-bit LCG, the top 53 bits). */
static double unit_rand(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* A random plan of 1 to 3 faults on the sample's functions and gateway into f. */
static size_t random_plan(const ac_model *m, unsigned long long *seed, ac_transient_fault *f)
{
    static const char *fns[] = {"ingest", "shard", "aggregate"};
    size_t n = 1 + (size_t)(3.0 * unit_rand(seed));
    for (size_t k = 0; k < n; k++) {
        double u = unit_rand(seed), start = 540.0 * unit_rand(seed);
        f[k].start = start;
        f[k].end = start + 10.0 + 110.0 * unit_rand(seed);
        if (u < 0.25) {
            f[k].target = ac_model_find_node(m, "api");
            f[k].attr = AC_TRANSIENT_FAULT_CAPACITY_LOSS;
            f[k].value = 0.5 * unit_rand(seed);
        } else {
            int a = (int)(3.0 * unit_rand(seed));
            f[k].target = ac_model_find_node(m, fns[(int)(3.0 * unit_rand(seed)) % 3]);
            f[k].attr = a == 0   ? AC_TRANSIENT_FAULT_DELAY
                        : a == 1 ? AC_TRANSIENT_FAULT_FAIL_PROB
                                 : AC_TRANSIENT_FAULT_COLD_START;
            f[k].value = (a == 0 ? 0.2 : a == 1 ? 0.3 : 2.0) * unit_rand(seed);
        }
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct job {
    const ac_model *m;
    size_t n;
    int rc;
    double cpu_ms; /* the thread's CPU time over its n evaluations */
} job;

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* n evaluations on a workspace of its own (after one to settle the start). */
static void *worker(void *arg)
{
    job *jb = arg;
    ac_transient_ws *ws = NULL;
    const ac_transient *tr;
    ac_error e = {0};
    double c0;
    jb->rc = ac_transient_new(jb->m, NULL, &ws, &e);
    if (jb->rc == 0) /* the first settles the start */
        jb->rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    c0 = cpu_ms();
    for (size_t i = 0; jb->rc == 0 && i < jb->n; i++)
        jb->rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    jb->cpu_ms = cpu_ms() - c0;
    ac_transient_ws_free(ws);
    return NULL;
}

/* Wall time (ms) of `nthreads` workers doing n evaluations each; *cpu the mean CPU time
 * (ms) of one evaluation on the threads. */
static double threaded(const ac_model *m, size_t nthreads, size_t n, double *cpu, int *rc)
{
    pthread_t th[2];
    job jobs[2];
    double t0 = now_ms();
    *rc = 0;
    *cpu = 0.0;
    for (size_t k = 0; k < nthreads; k++) {
        jobs[k].m = m;
        jobs[k].n = n;
        jobs[k].rc = 0;
        pthread_create(&th[k], NULL, worker, &jobs[k]);
    }
    for (size_t k = 0; k < nthreads; k++) {
        pthread_join(th[k], NULL);
        *rc |= jobs[k].rc;
        *cpu += jobs[k].cpu_ms / (double)(n * nthreads);
    }
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    char path[4096];
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error e = {0};
    ac_transient_ws *ws = NULL;
    ac_transient *one = NULL;
    const ac_transient *tr = NULL;
    size_t n = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 200, allocs = 0, lus = 0;
    double *t = NULL, t_run, t_first, median, one_thread, two_threads, speedup, planned = 0.0;
    size_t plan_allocs = 0, failed = 0;
    int rc, status = 0;
    gsl_set_error_handler_off(); /* statuses are checked; GSL's default handler aborts */
    *(void **)&g_real_factor = dlsym(RTLD_NEXT, "klu_l_factor");
    *(void **)&g_real_refactor = dlsym(RTLD_NEXT, "klu_l_refactor");
    if (g_real_factor == NULL || g_real_refactor == NULL || argc < 2 || n < 1) {
        fprintf(stderr, "usage: bench_transient ROOT [N]\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/samples/serverless-pipeline.xml", argv[1]);
    ac_diag_list_init(&d);
    if (ac_parser_parse_file(path, &m, &d, &e) != 0) {
        fprintf(stderr, "%s: %s\n", path, e.message);
        return 2;
    }
    t = calloc(n, sizeof *t);
    t_run = now_ms();
    rc = ac_transient_run(m, NULL, &one, &e);
    t_run = now_ms() - t_run;
    if (rc == 0)
        rc = ac_transient_new(m, NULL, &ws, &e);
    t_first = now_ms();
    if (rc == 0)
        rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    t_first = now_ms() - t_first;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t a0 = atomic_load(&g_allocs), l0 = atomic_load(&g_lu);
        double t0 = now_ms();
        rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
        t[i] = now_ms() - t0;
        allocs += atomic_load(&g_allocs) - a0;
        lus += atomic_load(&g_lu) - l0;
    }
    if (rc != 0) {
        fprintf(stderr, "transient: %s\n", e.message);
        return 2;
    }
    qsort(t, n, sizeof *t, cmp_double);
    median = t[n / 2];
    {
        unsigned long long seed = 1;
        ac_transient_fault f[3];
        size_t fa = 0;
        for (size_t i = 0; i < n; i++) {
            ac_transient_plan plan = {random_plan(m, &seed, f), f};
            size_t a0 = atomic_load(&g_allocs);
            double t0 = now_ms();
            const ac_transient *trp = NULL;
            int prc = ac_transient_eval(ws, &plan, 1.0, &trp, &e);
            t[i] = now_ms() - t0;
            fa += atomic_load(&g_allocs) - a0;
            if (prc != 0) { /* reported with its plan */
                fprintf(stderr, "  failed under a plan (%s):", e.message);
                for (size_t k = 0; k < plan.nfaults; k++)
                    fprintf(stderr, " {node %zu, attr %d, %g, [%g, %g)}", f[k].target,
                            (int)f[k].attr, f[k].value, f[k].start, f[k].end);
                fprintf(stderr, "\n");
                ac_error_clear(&e);
                failed++;
            }
        }
        qsort(t, n, sizeof *t, cmp_double);
        planned = t[n / 2];
        plan_allocs = fa;
    }
    printf("transient of %s (%zu states, %s)\n", path, tr->dim, tr->method);
    printf("  one-shot ac_transient_run       %10.2f ms\n", t_run);
    printf("  first evaluation (settles)      %10.2f ms\n", t_first);
    printf("  evaluation, median of %-5zu     %10.2f ms  (floor 8 ms, goal 1 ms)%s\n", n, median,
           median <= 8.0 ? "" : "  MISSED");
    printf("  allocations in %zu evaluations  %10zu      (must be 0)%s\n", n, allocs,
           allocs == 0 ? "" : "  MISSED");
    printf("  LU factorisations per evaluation %9.0f      (CVODE's iteration matrix, KLU)\n",
           (double)lus / (double)n);
    printf("  under a random fault plan, median of %-3zu %9.2f ms  (allocations: %zu)%s\n", n,
           planned, plan_allocs, planned <= 8.0 && plan_allocs == 0 ? "" : "  MISSED");
    printf("  plans whose integration failed  %10zu      (must be 0)%s\n", failed,
           failed == 0 ? "" : "  MISSED");
    status |= median > 8.0 || allocs != 0 || planned > 8.0 || plan_allocs != 0 || failed != 0;
    {
        size_t nt = n / 4 > 0 ? n / 4 : 1;
        double cpu1, cpu2;
        one_thread = threaded(m, 1, nt, &cpu1, &rc);
        two_threads = threaded(m, 2, nt, &cpu2, &rc);
        speedup = 2.0 * one_thread / two_threads;
        printf("  two workspaces on two threads   %10.2fx throughput of one (floor 1.8x)%s\n",
               speedup, speedup >= 1.8 ? "" : "  MISSED");
        printf("    CPU time of one evaluation: %.2f ms on one thread, %.2f ms on each of two "
               "(no contention: equal; the wall-time ratio needs two idle cores)\n",
               cpu1, cpu2);
        status |= rc != 0 || speedup < 1.8;
    }
    ac_transient_ws_free(ws);
    ac_transient_free(one);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    free(t);
    return status;
}
