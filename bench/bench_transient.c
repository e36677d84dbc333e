/*
 * Benchmark: one evaluation of the fluid transient of samples/serverless-pipeline.xml under
 * a random fault plan on a reused workspace, as the worst-case search evaluates it (the
 * search's options: percentiles on demand; ac_transient_new once, ac_transient_eval per
 * plan). The plans: 1 to 3 faults (delay, fail-prob, cold-start on the functions,
 * capacity-loss on the gateway, windows of 10 s to 2 min anywhere in the horizon; a fixed
 * seed). Printed, each with its floor and goal:
 *   - the median wall time over N plans (default 200): floor 8 ms, goal 1 ms;
 *   - the instructions of one evaluation (the mean over the first TR_COUNTED plans, counted
 *     by callgrind: the program runs itself under valgrind when it is installed; the machine
 *     is noisy, instruction counts are not): floor 8e7, goal 1e7 (8 ms and 1 ms at 1e7
 *     instructions per ms, the rate of the machine where the floors were set);
 *   - the throughput of two workspaces on two threads over one thread's (the same plans):
 *     floor 1.8x, goal 2x; with the CPU time of one evaluation on each (equal when the
 *     workspaces do not contend; the wall-time ratio also needs two idle cores).
 * Also the allocations under the plans (must be 0: malloc, calloc and realloc interposed in
 * this program, which sees the libraries' too: CVODE's, KLU's), the sparse LU factorisations
 * per evaluation (CVODE's linear-solver setups, SUNLinSolSetup interposed; of which KLU's
 * klu_l_factor and klu_l_refactor, interposed), the plans whose
 * integration failed (must be 0), the one-shot ac_transient_run and the first evaluation
 * (which settles the start state and integrates the no-fault prefix). Exit 1 when a floor
 * is missed.
 *
 *   bench_transient ROOT [N]        ROOT: the source tree (for samples/)
 *   bench_transient ROOT --count K  K plan evaluations only (what callgrind counts; their
 *                                   steps, restarts, LU factorisations on stderr)
 *   bench_transient ROOT --dump K [RTOL]
 *                                   the outputs of plans 1..K on stdout (one line per plan,
 *                                   node and metric: the summaries, the quantiles the search
 *                                   reads, the trajectories), to compare two builds; with
 *                                   RTOL, at that relative tolerance (atol 1e-3 RTOL, the
 *                                   work budget x 1000): the reference (1e-10) a build's
 *                                   default-tolerance dump is judged against
 */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cvode/cvode.h>
#include <gsl/gsl_errno.h>
#include <klu.h>
#include <sundials/sundials_linearsolver.h>

#include "archcheck/parser.h"
#include "archcheck/transient.h"
#include "bench/rows.h"

/* ---- counting allocator (glibc's own under it) ---- */

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t k);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

static atomic_size_t g_allocs, g_lu, g_klu, g_steps, g_restarts;

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

/* KLU's factorisations (called by SUNDIALS' KLU solver through the PLT, and by the
 * transient's driver when a pivot fails): counted. */
klu_l_numeric *klu_l_factor(SuiteSparse_long *Ap, SuiteSparse_long *Ai, double *Ax,
                            klu_l_symbolic *S, klu_l_common *C)
{
    atomic_fetch_add(&g_klu, 1);
    return g_real_factor(Ap, Ai, Ax, S, C);
}

SuiteSparse_long klu_l_refactor(SuiteSparse_long *Ap, SuiteSparse_long *Ai, double *Ax,
                                klu_l_symbolic *S, klu_l_numeric *N, klu_l_common *C)
{
    atomic_fetch_add(&g_klu, 1);
    return g_real_refactor(Ap, Ai, Ax, S, N, C);
}

/* CVODE's linear-solver setups (through the PLT): each one LU factorisation of the
 * iteration matrix, by solver/transient_lu.c in KLU's order or by KLU itself (the driver's
 * solver has the custom id; its own calls into KLU's solver are not counted here). */
static int (*g_real_lssetup)(SUNLinearSolver, SUNMatrix);

int SUNLinSolSetup(SUNLinearSolver S, SUNMatrix A)
{
    if (SUNLinSolGetID(S) == SUNLINEARSOLVER_CUSTOM)
        atomic_fetch_add(&g_lu, 1);
    return g_real_lssetup(S, A);
}

/* CVODE's own, set by main: its steps (one CVode call in CV_ONE_STEP mode is one step;
 * the settling's CV_NORMAL calls are not counted) and its restarts, counted. */
static int (*g_real_cvode)(void *, sunrealtype, N_Vector, sunrealtype *, int);
static int (*g_real_reinit)(void *, sunrealtype, N_Vector);

int CVode(void *mem, sunrealtype tout, N_Vector yout, sunrealtype *tret, int itask)
{
    if (itask == CV_ONE_STEP)
        atomic_fetch_add(&g_steps, 1);
    return g_real_cvode(mem, tout, yout, tret, itask);
}

int CVodeReInit(void *mem, sunrealtype t0, N_Vector y0)
{
    atomic_fetch_add(&g_restarts, 1);
    return g_real_reinit(mem, t0, y0);
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

/* The plans counted by callgrind (the first of the N): 40, since plans 1..10 are lighter than
 * the mean (session 6: 1.04e8 instructions per evaluation over 10, 2.19e8 over 40). */
#define TR_COUNTED 40

/* The search's options: the quantiles on demand (search/objective.c). */
static void search_options(ac_transient_options *opt)
{
    ac_transient_options_init(opt);
    opt->percentiles = 0;
}

/* Plans `from` .. `from + n - 1` of the fixed sequence into f (3 faults each at most). */
static void plans(const ac_model *m, size_t from, size_t n, ac_transient_fault *f, size_t *nf)
{
    unsigned long long seed = 1;
    ac_transient_fault skip[3];
    for (size_t i = 0; i < from; i++)
        (void)random_plan(m, &seed, skip);
    for (size_t i = 0; i < n; i++)
        nf[i] = random_plan(m, &seed, f + 3 * i);
}

typedef struct job {
    const ac_model *m;
    const ac_transient_fault *f;
    const size_t *nf;
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

/* The n plans on a workspace of its own (after the first evaluation, which settles). */
static void *worker(void *arg)
{
    job *jb = arg;
    ac_transient_ws *ws = NULL;
    ac_transient_options opt;
    const ac_transient *tr;
    ac_error e = {0};
    double c0;
    search_options(&opt);
    jb->rc = ac_transient_new(jb->m, &opt, &ws, &e);
    if (jb->rc == 0)
        jb->rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    c0 = cpu_ms();
    for (size_t i = 0; jb->rc == 0 && i < jb->n; i++) {
        ac_transient_plan plan = {jb->nf[i], jb->f + 3 * i};
        if (ac_transient_eval(ws, &plan, 1.0, &tr, &e) != 0)
            ac_error_clear(&e); /* counted in main */
    }
    jb->cpu_ms = cpu_ms() - c0;
    ac_transient_ws_free(ws);
    return NULL;
}

/* Wall time (ms) of `nthreads` workers doing the n plans each; *cpu the mean CPU time (ms)
 * of one evaluation on the threads. */
static double threaded(const ac_model *m, const ac_transient_fault *f, const size_t *nf, size_t n,
                       size_t nthreads, double *cpu, int *rc)
{
    pthread_t th[2];
    job jobs[2];
    double t0 = now_ms();
    *rc = 0;
    *cpu = 0.0;
    for (size_t k = 0; k < nthreads; k++) {
        jobs[k] = (job){m, f, nf, n, 0, 0.0};
        pthread_create(&th[k], NULL, worker, &jobs[k]);
    }
    for (size_t k = 0; k < nthreads; k++) {
        pthread_join(th[k], NULL);
        *rc |= jobs[k].rc;
        *cpu += jobs[k].cpu_ms / (double)(n * nthreads);
    }
    return now_ms() - t0;
}

/* The evaluations that callgrind counts (--toggle-collect=counted_evals). */
__attribute__((noinline)) int counted_evals(ac_transient_ws *ws, const ac_transient_fault *f,
                                            const size_t *nf, size_t n);
__attribute__((noinline)) int counted_evals(ac_transient_ws *ws, const ac_transient_fault *f,
                                            const size_t *nf, size_t n)
{
    const ac_transient *tr;
    ac_error e = {0};
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        ac_transient_plan plan = {nf[i], f + 3 * i};
        if (ac_transient_eval(ws, &plan, 1.0, &tr, &e) != 0) {
            ac_error_clear(&e);
            failed++;
        }
    }
    return failed;
}

/* --count K: K plans on a settled workspace, inside counted_evals. */
static int count_mode(const ac_model *m, size_t k)
{
    ac_transient_ws *ws = NULL;
    ac_transient_options opt;
    const ac_transient *tr;
    ac_error e = {0};
    ac_transient_fault *f = calloc(3 * k, sizeof *f);
    size_t *nf = calloc(k, sizeof *nf);
    int rc;
    search_options(&opt);
    plans(m, 0, k, f, nf);
    rc = f == NULL || nf == NULL ? 2 : ac_transient_new(m, &opt, &ws, &e);
    if (rc == 0)
        rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    if (rc == 0) {
        size_t a0 = atomic_load(&g_allocs), l0 = atomic_load(&g_lu), k0 = atomic_load(&g_klu);
        size_t st0 = atomic_load(&g_steps), r0 = atomic_load(&g_restarts);
        int failed = counted_evals(ws, f, nf, k);
        /* the counted statistics of the K plans (stderr: stdout stays callgrind's) */
        fprintf(stderr,
                "%zu plans: %.1f steps, %.1f restarts, %.1f LU per evaluation (%.2f by KLU); "
                "%zu allocations, %d failed\n",
                k, (double)(atomic_load(&g_steps) - st0) / (double)k,
                (double)(atomic_load(&g_restarts) - r0) / (double)k,
                (double)(atomic_load(&g_lu) - l0) / (double)k,
                (double)(atomic_load(&g_klu) - k0) / (double)k, atomic_load(&g_allocs) - a0,
                failed);
        rc = failed != 0;
    }
    ac_transient_ws_free(ws);
    free(f);
    free(nf);
    return rc;
}

/* One line: plan i, node v, the name, then the values. */
static void dump_line(size_t i, size_t v, const char *name, const double *x, size_t n)
{
    if (x == NULL)
        return;
    printf("%zu %zu %s", i, v, name);
    for (size_t k = 0; k < n; k++)
        printf(" %.12g", x[k]);
    printf("\n");
}

/* --dump K: the outputs of plans 1..K (after the first evaluation, as the search runs);
 * rtol > 0: at that tolerance. */
static int dump_mode(const ac_model *m, size_t k, double rtol)
{
    ac_transient_ws *ws = NULL;
    ac_transient_options opt;
    const ac_transient *tr;
    ac_error e = {0};
    ac_transient_fault *f = calloc(3 * k, sizeof *f);
    size_t *nf = calloc(k, sizeof *nf);
    double *scratch = calloc(m->nnodes + m->nlinks + 1, sizeof *scratch);
    int rc;
    search_options(&opt);
    if (rtol > 0.0) {
        opt.rtol = rtol;
        opt.atol = 1e-3 * rtol;
        opt.max_work *= 1000.0;
    }
    plans(m, 0, k, f, nf);
    rc = f == NULL || nf == NULL || scratch == NULL ? 2 : ac_transient_new(m, &opt, &ws, &e);
    if (rc == 0)
        rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    for (size_t i = 0; rc == 0 && i < k; i++) {
        ac_transient_plan plan = {nf[i], f + 3 * i};
        double e2e[2];
        if (ac_transient_eval(ws, &plan, 1.0, &tr, &e) != 0) {
            printf("%zu failed %s\n", i, e.message);
            ac_error_clear(&e);
            continue;
        }
        (void)ac_transient_e2e_quantile(tr, 0.95, scratch, &e2e[0]);
        (void)ac_transient_e2e_quantile(tr, 0.99, scratch, &e2e[1]);
        dump_line(i, 0, "e2e_p95_p99", e2e, 2);
        dump_line(i, 0, "e2e_fractions",
                  (const double[]){tr->e2e_error_fraction, tr->e2e_throttle_fraction}, 2);
        for (size_t v = 0; v < tr->nnodes; v++) {
            const ac_transient_node *n = &tr->nodes[v];
            double q[2], sum[9] = {n->offered,           n->throttled,      n->errors,
                                   n->throttle_fraction, n->error_fraction, n->backlog_duration,
                                   n->backlog_peak,      n->drain_time,     n->oldest_age};
            (void)ac_transient_node_quantile(tr, v, 0.95, NULL, &q[0]);
            (void)ac_transient_node_quantile(tr, v, 0.99, NULL, &q[1]);
            dump_line(i, v, "p95_p99", q, 2);
            dump_line(i, v, "summaries", sum, 9);
            dump_line(i, v, "throughput", n->throughput, tr->nsamples);
            dump_line(i, v, "mean_jobs", n->mean_jobs, tr->nsamples);
            dump_line(i, v, "loss_rate", n->loss_rate, tr->nsamples);
            dump_line(i, v, "in_system", n->in_system, tr->nsamples);
            dump_line(i, v, "utilization", n->utilization, tr->nsamples);
            dump_line(i, v, "throttle_rate", n->throttle_rate, tr->nsamples);
            dump_line(i, v, "execution_rate", n->execution_rate, tr->nsamples);
            dump_line(i, v, "backlog", n->backlog, tr->nsamples);
            dump_line(i, v, "cum_lost", n->cum_lost, tr->nsamples);
        }
    }
    ac_transient_ws_free(ws);
    free(f);
    free(nf);
    free(scratch);
    return rc;
}

/* Instructions of one plan evaluation: this program under callgrind in --count mode,
 * "Collected : N" / K. NAN when valgrind is not there or fails. */
static double instructions(const char *self, const char *root)
{
    char cmd[8192], line[512];
    double collected = NAN;
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=/dev/null "
             "--toggle-collect=counted_evals '%s' '%s' --count %d 2>&1",
             self, root, TR_COUNTED);
    p = popen(cmd, "r");
    if (p == NULL)
        return NAN;
    while (fgets(line, sizeof line, p) != NULL) {
        const char *c = strstr(line, "Collected : ");
        if (c != NULL)
            collected = strtod(c + 12, NULL);
    }
    if (pclose(p) != 0)
        return NAN;
    return collected / TR_COUNTED;
}

static const char *mark(int ok)
{
    return ok ? "" : "  MISSED";
}

int main(int argc, char **argv)
{
    char path[4096];
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error e = {0};
    ac_transient_ws *ws = NULL;
    ac_transient_options opt;
    ac_transient *one = NULL;
    const ac_transient *tr = NULL;
    size_t n = 200, plan_allocs = 0, lus = 0, klus = 0, steps = 0, restarts = 0, failed = 0,
           *nf = NULL;
    ac_transient_fault *f = NULL;
    double *t = NULL, t_run, t_first, median, instr, one_thread, two_threads, speedup, cpu1, cpu2;
    int rc, status = 0, count = argc > 3 && strcmp(argv[2], "--count") == 0;
    int dump = argc > 3 && strcmp(argv[2], "--dump") == 0;
    gsl_set_error_handler_off(); /* statuses are checked; GSL's default handler aborts */
    *(void **)&g_real_factor = dlsym(RTLD_NEXT, "klu_l_factor");
    *(void **)&g_real_refactor = dlsym(RTLD_NEXT, "klu_l_refactor");
    *(void **)&g_real_cvode = dlsym(RTLD_NEXT, "CVode");
    *(void **)&g_real_reinit = dlsym(RTLD_NEXT, "CVodeReInit");
    *(void **)&g_real_lssetup = dlsym(RTLD_NEXT, "SUNLinSolSetup");
    if (argc > 2 && !count && !dump)
        n = (size_t)strtoul(argv[2], NULL, 10);
    if (g_real_factor == NULL || g_real_refactor == NULL || g_real_cvode == NULL ||
        g_real_reinit == NULL || g_real_lssetup == NULL || argc < 2 || n < 1) {
        fprintf(stderr, "usage: bench_transient ROOT [N | --count K | --dump K [RTOL]]\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/samples/serverless-pipeline.xml", argv[1]);
    ac_diag_list_init(&d);
    if (ac_parser_parse_file(path, &m, &d, &e) != 0) {
        fprintf(stderr, "%s: %s\n", path, e.message);
        return 2;
    }
    if (count || dump) {
        size_t k = (size_t)strtoul(argv[3], NULL, 10);
        rc = count ? count_mode(m, k) : dump_mode(m, k, argc > 4 ? strtod(argv[4], NULL) : 0.0);
        ac_model_free(m);
        ac_diag_list_clear(&d);
        return rc;
    }
    t = calloc(n, sizeof *t);
    f = calloc(3 * n, sizeof *f);
    nf = calloc(n, sizeof *nf);
    if (t == NULL || f == NULL || nf == NULL)
        return 2;
    plans(m, 0, n, f, nf);
    search_options(&opt);
    t_run = now_ms();
    rc = ac_transient_run(m, &opt, &one, &e);
    t_run = now_ms() - t_run;
    if (rc == 0)
        rc = ac_transient_new(m, &opt, &ws, &e);
    t_first = now_ms();
    if (rc == 0)
        rc = ac_transient_eval(ws, NULL, 1.0, &tr, &e);
    t_first = now_ms() - t_first;
    if (rc != 0) {
        fprintf(stderr, "transient: %s\n", e.message);
        return 2;
    }
    printf("transient of %s (%zu states, %s), the search's options\n", path, tr->dim, tr->method);
    for (size_t i = 0; i < n; i++) {
        ac_transient_plan plan = {nf[i], f + 3 * i};
        size_t a0 = atomic_load(&g_allocs), l0 = atomic_load(&g_lu), k0 = atomic_load(&g_klu);
        size_t st0 = atomic_load(&g_steps), r0 = atomic_load(&g_restarts);
        double t0 = now_ms();
        int prc = ac_transient_eval(ws, &plan, 1.0, &tr, &e);
        t[i] = now_ms() - t0;
        plan_allocs += atomic_load(&g_allocs) - a0;
        lus += atomic_load(&g_lu) - l0;
        klus += atomic_load(&g_klu) - k0;
        steps += atomic_load(&g_steps) - st0;
        restarts += atomic_load(&g_restarts) - r0;
        if (prc != 0) { /* reported with its plan */
            fprintf(stderr, "  failed under plan %zu (%s):", i, e.message);
            for (size_t k = 0; k < plan.nfaults; k++)
                fprintf(stderr, " {node %zu, attr %d, %g, [%g, %g)}", plan.faults[k].target,
                        (int)plan.faults[k].attr, plan.faults[k].value, plan.faults[k].start,
                        plan.faults[k].end);
            fprintf(stderr, "\n");
            ac_error_clear(&e);
            failed++;
        }
    }
    qsort(t, n, sizeof *t, cmp_double);
    median = t[n / 2];
    instr = instructions(argv[0], argv[1]);
    one_thread = threaded(m, f, nf, n / 4 > 0 ? n / 4 : 1, 1, &cpu1, &rc);
    if (rc == 0)
        two_threads = threaded(m, f, nf, n / 4 > 0 ? n / 4 : 1, 2, &cpu2, &rc);
    else
        two_threads = INFINITY, cpu2 = NAN;
    speedup = 2.0 * one_thread / two_threads;
    printf("  one-shot ac_transient_run              %10.2f ms\n", t_run);
    printf("  first evaluation (settles, prefix)     %10.2f ms\n", t_first);
    printf("  under a random plan, median of %-5zu   %10.2f ms     (floor 8 ms, goal 1 ms)%s\n", n,
           median, mark(median <= 8.0));
    if (isnan(instr))
        printf("  instructions of one evaluation          n/a           (floor 8e7, goal 1e7: "
               "needs valgrind)\n");
    else
        printf("  instructions of one evaluation   %16.3e     (floor 8e7, goal 1e7; callgrind, "
               "mean of plans 1..%d)%s\n",
               instr, TR_COUNTED, mark(instr <= 8e7));
    printf("  two workspaces on two threads           %9.2fx     (floor 1.8x, goal 2x)%s\n",
           speedup, mark(speedup >= 1.8));
    printf("    CPU time of one evaluation: %.2f ms on one thread, %.2f ms on each of two "
           "(equal: no contention; the wall-time ratio needs two idle cores)\n",
           cpu1, cpu2);
    printf("  allocations under %zu plans          %10zu        (must be 0)%s\n", n, plan_allocs,
           mark(plan_allocs == 0));
    printf("  LU factorisations per evaluation       %10.0f        (CVODE's iteration matrix: "
           "%.2f by KLU, the rest in KLU's order by transient_lu.c)\n",
           (double)lus / (double)n, (double)klus / (double)n);
    printf("  steps per evaluation                   %10.0f        (CVODE's, %.1f restarts)\n",
           (double)steps / (double)n, (double)restarts / (double)n);
    printf("  plans whose integration failed         %10zu        (must be 0)%s\n", failed,
           mark(failed == 0));
    ac_bench_row("transient of serverless-pipeline.xml under a random fault plan, one evaluation",
                 median, "ms", "8 ms", "1 ms", median <= 8.0 ? "PASS" : "MISS",
                 "median of %zu plans, wall; %.0f steps, %.0f LU factorisations (%.2f by KLU) per "
                 "evaluation",
                 n, (double)steps / (double)n, (double)lus / (double)n, (double)klus / (double)n);
    if (!isnan(instr))
        ac_bench_row("transient of serverless-pipeline.xml under a random fault plan, instructions",
                     instr, "instructions", "8e7", "1e7", instr <= 8e7 ? "PASS" : "MISS",
                     "callgrind, mean of plans 1..%d", TR_COUNTED);
    ac_bench_row(
        "transient under fault plans, two workspaces on two threads", speedup, "x", "1.8x", "2x",
        speedup >= 1.8 ? "PASS" : "MISS",
        "wall-time throughput ratio; CPU %.2f ms per evaluation on one thread, %.2f on each "
        "of two",
        cpu1, cpu2);
    status |= median > 8.0 || !(isnan(instr) || instr <= 8e7) || speedup < 1.8 ||
              plan_allocs != 0 || failed != 0 || rc != 0;
    ac_transient_ws_free(ws);
    ac_transient_free(one);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    free(t);
    free(f);
    free(nf);
    return status;
}
