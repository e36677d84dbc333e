/*
 * Tests of search/: the operators' properties (bounds, SBX's mean, the tournament's law),
 * the decoding of genes to a fault plan, the GA against the exhaustive grid and against
 * random search on a closed-form objective, determinism across jobs on a tiny transient,
 * and the diagnostics of a bad <faults>.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

#include "archcheck/parser.h"
#include "archcheck/confirm.h"
#include "archcheck/search.h"
#include "tests/helpers.h"

typedef struct fx {
    ac_model *m;
    ac_diag_list d;
    ac_error err;
} fx;

static int fx_parse(fx *f, const char *xml)
{
    memset(f, 0, sizeof *f);
    ac_diag_list_init(&f->d);
    return ac_parser_parse_memory(xml, strlen(xml), "t.xml", &f->m, &f->d, &f->err);
}

static void fx_free(fx *f)
{
    ac_model_free(f->m);
    ac_diag_list_clear(&f->d);
}

/* ------------------------------------------------------------- operators */

static void test_sbx_bounds_and_mean(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    const double etas[] = {0.5, 2.0, 15.0};
    double a[3], b[3], c1[3], c2[3], sum = 0.0, sum2 = 0.0;
    const size_t N = 20000;
    (void)state;
    gsl_rng_set(r, 7);
    for (size_t e = 0; e < 3; e++)
        for (size_t k = 0; k < N; k++) {
            for (size_t i = 0; i < 3; i++) {
                a[i] = gsl_rng_uniform(r);
                b[i] = gsl_rng_uniform(r);
            }
            ac_search_sbx.cross(a, b, c1, c2, 3, etas[e], r);
            for (size_t i = 0; i < 3; i++) {
                assert_true(c1[i] >= 0.0 && c1[i] <= 1.0);
                assert_true(c2[i] >= 0.0 && c2[i] <= 1.0);
            }
        }
    /* Parents 0.3 and 0.6, eta 15 (a child leaves [0, 1] only with beta > 3, P < 1e-7):
     * the children's mean is the parents' exactly; a gene is crossed with probability 1/2
     * and its spread beta = |c2 - c1| / |b - a| is below 1 with probability P(u < 1/2) =
     * 1/2, so P(spread < 1) = 1/4 (5 standard errors); the one child's mean over the draws
     * is 0.3 / 2 + 0.45 / 2 (crossed children centred on the midpoint, sides drawn). */
    a[0] = 0.3;
    b[0] = 0.6;
    {
        size_t narrow = 0;
        double p = 0.25, mean, sd;
        for (size_t k = 0; k < N; k++) {
            ac_search_sbx.cross(a, b, c1, c2, 1, 15.0, r);
            assert_double_close(c1[0] + c2[0], 0.9, 1e-12, 0.0);
            narrow += fabs(c2[0] - c1[0]) < 0.3 * (1.0 - 1e-9);
            sum += c1[0];
            sum2 += c1[0] * c1[0];
        }
        assert_double_close((double)narrow / (double)N, p, 5.0 * sqrt(p * (1 - p) / (double)N),
                            0.0);
        mean = sum / (double)N;
        sd = sqrt(sum2 / (double)N - mean * mean);
        assert_double_close(mean, 0.375, 5.0 * sd / sqrt((double)N), 0.0);
    }
    gsl_rng_free(r);
}

static void test_mutations_and_blend_bounds(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double x[4], a[4], b[4], c1[4], c2[4];
    size_t changed = 0;
    (void)state;
    gsl_rng_set(r, 11);
    for (size_t k = 0; k < 20000; k++) {
        for (size_t i = 0; i < 4; i++)
            x[i] = i == 0 ? 0.0 : (i == 1 ? 1.0 : gsl_rng_uniform(r));
        ac_search_polynomial.mutate(x, 4, 1.0, k % 2 ? 1.0 : 20.0, r);
        for (size_t i = 0; i < 4; i++)
            assert_true(x[i] >= 0.0 && x[i] <= 1.0);
        changed += x[0] > 0.0;
        ac_search_gaussian.mutate(x, 4, 1.0, 0.5, r);
        for (size_t i = 0; i < 4; i++) {
            assert_true(x[i] >= 0.0 && x[i] <= 1.0);
            a[i] = gsl_rng_uniform(r);
            b[i] = gsl_rng_uniform(r);
        }
        ac_search_blend.cross(a, b, c1, c2, 4, 0.5, r);
        for (size_t i = 0; i < 4; i++) {
            /* in [0, 1] and within alpha d of the parents' interval */
            double lo = fmin(a[i], b[i]) - 0.5 * fabs(a[i] - b[i]) - 1e-15;
            double hi = fmax(a[i], b[i]) + 0.5 * fabs(a[i] - b[i]) + 1e-15;
            assert_true(c1[i] >= 0.0 && c1[i] <= 1.0 && c1[i] >= fmin(lo, 1.0) &&
                        c1[i] <= fmax(hi, 0.0));
            assert_true(c2[i] >= 0.0 && c2[i] <= 1.0);
        }
    }
    /* the mutation at the bound 0 does move it (u >= 1/2 half the time) */
    assert_true(changed > 5000);
    /* rate 0: nothing moves */
    x[0] = 0.25;
    ac_search_polynomial.mutate(x, 1, 0.0, 20.0, r);
    assert_true(x[0] == 0.25);
    gsl_rng_free(r);
}

static void test_tournament_law(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    const double score[5] = {0.1, 0.9, 0.3, 0.5, 0.2};
    const size_t N = 200000;
    (void)state;
    gsl_rng_set(r, 3);
    for (size_t size = 1; size <= 3; size++) {
        size_t best = 0, worst = 0;
        double p = 1.0 - pow(0.8, (double)size), q = pow(0.2, (double)size);
        for (size_t k = 0; k < N; k++) {
            size_t w = ac_search_tournament.select(score, 5, size, r);
            best += w == 1;
            worst += w == 0;
        }
        /* P(best) = 1 - (1 - 1/n)^size, P(worst) = (1/n)^size: 5 standard errors */
        assert_double_close((double)best / (double)N, p, 5.0 * sqrt(p * (1 - p) / (double)N), 0.0);
        assert_double_close((double)worst / (double)N, q, 5.0 * sqrt(q * (1 - q) / (double)N), 0.0);
    }
    gsl_rng_free(r);
}

/* ----------------------------------------------------------------- decode */

static const char decode_xml[] =
    "<architecture name='d' format='1'>\n"
    "  <workload><source id='s' to='p' rate='10/s'/></workload>\n"
    "  <pool id='p' servers='4' service-time='100ms'/>\n"
    "  <route from='p' to='fn'/>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s'/>\n"
    "  <faults budget='100' seed='3'>\n"
    "    <fault target='p' servers-down='0..3' delay='0ms..0ms'/>\n"
    "    <fault target='fn' delay='0ms..2s' fail-prob='10%..50%' at='5s..15s' "
    "for='10s..20s'/>\n"
    "  </faults>\n"
    "</architecture>\n";

static void test_decode(void **state)
{
    fx f;
    ac_search_space *sp = NULL;
    ac_transient_fault plan[8];
    double g[8];
    size_t p, fn;
    (void)state;
    assert_int_equal(fx_parse(&f, decode_xml), AC_OK);
    p = ac_model_find_node(f.m, "p");
    fn = ac_model_find_node(f.m, "fn");
    assert_int_equal(ac_search_space_new(f.m, 60.0, &sp, &f.err), AC_OK);
    /* genes: p.servers-down (p.delay is fixed at 0), fn.delay, fn.fail-prob, fn.at, fn.for */
    assert_int_equal(ac_search_space_ngenes(sp), 5);
    assert_int_equal(ac_search_space_nfaults(sp), 4);
    assert_string_equal(ac_search_space_gene(sp, 0)->name, "p.servers-down");
    assert_string_equal(ac_search_space_gene(sp, 3)->name, "fn.at");
    assert_string_equal(ac_search_space_gene(sp, 4)->name, "fn.for");
    assert_null(ac_search_space_gene(sp, 5));
    for (size_t i = 0; i < 5; i++)
        g[i] = 0.0;
    ac_search_space_decode(sp, g, plan);
    assert_int_equal(plan[0].target, p);
    assert_int_equal(plan[0].attr, AC_TRANSIENT_FAULT_DELAY);
    assert_true(plan[0].value == 0.0 && plan[0].start == 0.0 && isinf(plan[0].end));
    assert_int_equal(plan[1].attr, AC_TRANSIENT_FAULT_SERVERS_DOWN);
    assert_true(plan[1].value == 0.0);
    assert_int_equal(plan[2].target, fn);
    assert_int_equal(plan[2].attr, AC_TRANSIENT_FAULT_DELAY);
    assert_true(plan[2].value == 0.0 && plan[2].start == 5.0 && plan[2].end == 15.0);
    assert_int_equal(plan[3].attr, AC_TRANSIENT_FAULT_FAIL_PROB);
    assert_double_close(plan[3].value, 0.1, 1e-15, 0.0);
    assert_true(plan[3].start == 5.0 && plan[3].end == 15.0);
    for (size_t i = 0; i < 5; i++)
        g[i] = 1.0;
    ac_search_space_decode(sp, g, plan);
    assert_true(plan[1].value == 3.0);
    assert_true(plan[2].value == 2.0 && plan[2].start == 15.0 && plan[2].end == 35.0);
    assert_double_close(plan[3].value, 0.5, 1e-15, 0.0);
    /* the middle; a count takes each of its 4 values on a quarter of [0, 1]; genes out of
     * [0, 1] are clamped */
    g[0] = 0.5;
    g[1] = 0.25;
    g[2] = 0.5;
    g[3] = -3.0;
    g[4] = 7.0;
    ac_search_space_decode(sp, g, plan);
    assert_true(plan[1].value == 2.0);
    assert_double_close(plan[2].value, 0.5, 1e-15, 0.0);
    assert_double_close(plan[3].value, 0.3, 1e-15, 0.0);
    assert_true(plan[3].start == 5.0 && plan[3].end == 25.0);
    g[0] = 0.2499;
    ac_search_space_decode(sp, g, plan);
    assert_true(plan[1].value == 0.0);
    g[0] = 0.7501;
    ac_search_space_decode(sp, g, plan);
    assert_true(plan[1].value == 3.0);
    ac_search_space_free(sp);
    ac_search_space_free(NULL);
    assert_int_equal(ac_search_space_new(f.m, 0.0, &sp, &f.err), AC_EINVAL);
    assert_null(sp);
    fx_free(&f);
}

/* ------------------------------------------------- GA, grid, random search */

/* A closed-form objective on [0, 1]^2: a global peak (height 1 at (0.73, 0.21), width 0.1)
 * and a broad deceptive one (0.8 at (0.2, 0.8), width 0.15) that draws the population. */
static int peaks(void *ctx, size_t job, const double *x, double *out, ac_error *err)
{
    double d1 = (x[0] - 0.73) * (x[0] - 0.73) + (x[1] - 0.21) * (x[1] - 0.21);
    double d2 = (x[0] - 0.2) * (x[0] - 0.2) + (x[1] - 0.8) * (x[1] - 0.8);
    (void)ctx;
    (void)job;
    (void)err;
    *out = exp(-d1 / (2 * 0.1 * 0.1)) + 0.8 * exp(-d2 / (2 * 0.15 * 0.15));
    return 0;
}

static double run_search(const ac_search_problem *pr, ac_search_method method, size_t budget,
                         unsigned long seed)
{
    ac_search_options o;
    ac_search_ga *ga = NULL;
    ac_error err = {0};
    double s;
    ac_search_options_init(&o);
    o.method = method;
    o.budget = budget;
    o.seed = seed;
    assert_int_equal(ac_search_ga_new(pr, &o, &ga, &err), AC_OK);
    assert_int_equal(ac_search_ga_run(ga, &err), AC_OK);
    assert_int_equal(ac_search_ga_evaluations(ga), budget);
    s = ac_search_ga_best(ga, NULL);
    ac_search_ga_free(ga);
    return s;
}

static void test_ga_vs_grid_and_random(void **state)
{
    ac_search_problem pr = {2, peaks, NULL, NULL, 0.0};
    double best[2], grid = 0.0, ga_sum = 0.0, rnd_sum = 0.0, ga_min = INFINITY;
    size_t evals = 0, budget;
    ac_error err = {0};
    (void)state;
    assert_int_equal(ac_search_grid(&pr, 101, 1000000, best, &grid, &evals, &err), AC_OK);
    assert_int_equal(evals, 101 * 101);
    assert_double_close(best[0], 0.73, 1e-12, 0.0);
    assert_double_close(best[1], 0.21, 1e-12, 0.0);
    assert_double_close(grid, 1.0, 0.0, 1e-5);
    budget = evals / 10;
    for (unsigned long seed = 1; seed <= 10; seed++) {
        double g = run_search(&pr, AC_SEARCH_GA, budget, seed);
        double r = run_search(&pr, AC_SEARCH_RANDOM, budget, seed);
        print_message("seed %lu: GA %.6f random %.6f (grid %.6f, %zu evaluations of %zu)\n", seed,
                      g, r, grid, budget, evals);
        assert_true(g >= 0.99 * grid);
        ga_sum += g;
        rnd_sum += r;
        ga_min = fmin(ga_min, g);
    }
    print_message("mean over 10 seeds: GA %.6f (min %.6f) random %.6f\n", ga_sum / 10, ga_min,
                  rnd_sum / 10);
    assert_true(ga_sum >= rnd_sum);
    /* the grid refuses more points than its budget */
    assert_int_equal(ac_search_grid(&pr, 101, 10000, best, &grid, &evals, &err), AC_ELIMIT);
}

static int identity1(void *ctx, size_t job, const double *x, double *out, ac_error *err)
{
    (void)ctx;
    (void)job;
    (void)err;
    *out = x[0];
    return 0;
}

/* The convergence over seeds: random sampling of f(g) = g, n = 100 draws per run: the best is
 * the maximum of n uniforms, P(max <= x) = x^n, so its quartiles are 0.25^(1/n), 0.5^(1/n),
 * 0.75^(1/n) (0.98623, 0.99309, 0.99713); the sample median of 21 seeds has standard
 * deviation 1 / (2 f(m) sqrt(21)) = 0.0022 (f = n x^(n-1)): within 4 of them. The GA's final
 * median is the median of the 21 runs made one by one, every curve is non-decreasing, q1 <=
 * median <= q3, and the last grid point is the final best. */
static void test_convergence_seeds(void **state)
{
    ac_search_problem pr = {1, identity1, NULL, NULL, 0.0}, pk = {2, peaks, NULL, NULL, 0.0};
    ac_search_options o;
    ac_search_convergence *c = calloc(1, sizeof *c);
    ac_error err = {0};
    double finals[21];
    (void)state;
    assert_non_null(c);
    ac_search_options_init(&o);
    o.budget = 100;
    o.seed = 3;
    assert_int_equal(ac_search_convergence_run(&pr, &o, 21, c, &err), AC_OK);
    print_message("random max of 100: quartiles %.5f %.5f %.5f (closed form 0.98623 0.99309 "
                  "0.99713)\n",
                  c->final[1][0], c->final[1][1], c->final[1][2]);
    assert_double_close(c->final[1][1], pow(0.5, 0.01), 0.0087, 0.0);
    assert_double_close(c->final[1][0], pow(0.25, 0.01), 0.012, 0.0);
    assert_double_close(c->final[1][2], pow(0.75, 0.01), 0.006, 0.0);
    assert_int_equal(ac_search_convergence_run(&pk, &o, 0, c, &err), AC_EINVAL);
    o.budget = 400;
    assert_int_equal(ac_search_convergence_run(&pk, &o, 21, c, &err), AC_OK);
    for (unsigned long s = 0; s < 21; s++)
        finals[s] = run_search(&pk, AC_SEARCH_GA, 400, 3 + s);
    gsl_sort(finals, 1, 21);
    assert_double_close(c->final[0][1], finals[10], 1e-12, 0.0);
    for (int m = 0; m < 2; m++) {
        for (size_t k = 0; k < AC_SEARCH_CONVERGENCE_POINTS; k++) {
            if (isnan(c->best[m][1][k]))
                continue;
            assert_true(c->best[m][0][k] <= c->best[m][1][k]);
            assert_true(c->best[m][1][k] <= c->best[m][2][k]);
            if (k > 0 && !isnan(c->best[m][1][k - 1]))
                assert_true(c->best[m][1][k] >= c->best[m][1][k - 1]);
        }
        assert_double_close(c->best[m][1][AC_SEARCH_CONVERGENCE_POINTS - 1], c->final[m][1], 1e-12,
                            0.0);
    }
    assert_true(c->top >= finals[20]);
    assert_double_close(c->evals[AC_SEARCH_CONVERGENCE_POINTS - 1], 400.0, 0.0, 0.0);
    print_message("peaks, 400 evaluations, 21 seeds: GA median %.5f, random %.5f; 99%% of %.5f "
                  "reached by GA %zu seeds (median %.0f), random %zu\n",
                  c->final[0][1], c->final[1][1], c->top, c->reached99[0], c->reach99[0],
                  c->reached99[1]);
    free(c);
}

static void test_ga_options(void **state)
{
    ac_search_problem pr = {2, peaks, NULL, NULL, 0.0}, none = {0, peaks, NULL, NULL, 0.0};
    ac_search_options o;
    ac_search_ga *ga = NULL;
    ac_error err = {0};
    int done = 0;
    const double *x;
    (void)state;
    ac_search_options_init(&o);
    o.budget = 0;
    assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &err), AC_EINVAL);
    o.budget = (size_t)AC_SEARCH_BUDGET_MAX + 1;
    assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &err), AC_EINVAL);
    ac_search_options_init(&o);
    o.elite = o.population;
    assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &err), AC_EINVAL);
    assert_int_equal(ac_search_ga_new(&none, NULL, &ga, &err), AC_EINVAL);
    assert_null(ga);
    ac_search_ga_free(NULL);
    /* a budget below the population: one partial batch, never past the budget; the elites
     * are not re-evaluated, and the best never decreases */
    ac_search_options_init(&o);
    o.budget = 7;
    o.population = 4;
    o.crossover = &ac_search_blend;
    o.crossover_param = 0.5;
    o.mutation = &ac_search_gaussian;
    o.mutation_param = 0.1;
    assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &err), AC_OK);
    assert_true(isinf(ac_search_ga_best(ga, &x)));
    assert_int_equal(ac_search_ga_step(ga, &done, &err), AC_OK);
    assert_int_equal(ac_search_ga_evaluations(ga), 4);
    assert_false(done);
    {
        double b1 = ac_search_ga_best(ga, &x), s;
        peaks(NULL, 0, x, &s, &err);
        assert_true(s == b1);
        assert_int_equal(ac_search_ga_step(ga, &done, &err), AC_OK);
        assert_int_equal(ac_search_ga_evaluations(ga), 6);
        assert_false(done);
        assert_int_equal(ac_search_ga_step(ga, &done, &err), AC_OK);
        assert_int_equal(ac_search_ga_evaluations(ga), 7);
        assert_true(done);
        assert_true(ac_search_ga_best(ga, &x) >= b1);
        assert_int_equal(ac_search_ga_step(ga, &done, &err), AC_OK);
        assert_int_equal(ac_search_ga_evaluations(ga), 7);
    }
    ac_search_ga_free(ga);
}

/* --------------------------------------- the objective on a tiny transient */

static const char fn_xml[] =
    "<architecture name='f' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='50/s'/>\n"
    "    <profile source='s'><point at='0s' rate='50/s'/><point at='20s' rate='50/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
    "  <faults budget='100' seed='3'>\n"
    "    <fault target='fn' delay='0ms..300ms' fail-prob='0..50%'/>\n"
    "    <objective><term metric='error-rate' target='fn'/></objective>\n"
    "  </faults>\n"
    "</architecture>\n";

static void test_objective_closed_form(void **state)
{
    fx f;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_term_value tv;
    double g[2] = {0.0, 1.0}, s;
    (void)state;
    assert_int_equal(fx_parse(&f, fn_xml), AC_OK);
    assert_int_equal(ac_search_space_new(f.m, 20.0, &sp, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_new(f.m, sp, NULL, 1.0, 1, &obj, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_nterms(obj), 1);
    /* no fault: 5 busy of 10, nothing lost (Erlang-B blocking is not in the fluid model) */
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, NULL, &s, &tv, &f.err), AC_OK);
    assert_double_close(s, 0.0, 1e-6, 0.0);
    /* fail-prob 50% from t = 0: half of the executions fail, less the ~T_e = 0.1 s the
     * first completions lag over the 20 s (the timeout's share, e^-600, is nil) */
    assert_int_equal(ac_search_objective_eval(obj, 0, g, &s, &tv, &f.err), AC_OK);
    assert_double_close(s, 0.5, 0.0, 0.01);
    assert_double_close(tv.metric, s, 0.0, 1e-12);
    assert_true(tv.weight == 1.0 && tv.norm == 1.0);
    /* and with 300 ms more per execution: the fluid function admits C / T_e = 10 / 0.4 s =
     * 25/s of 50/s (the rest throttled, not errors), half of them fail: 12.5/s failed of
     * 50/s, 0.25, less the lag of the busy count's rise (T_e of 20 s) */
    g[0] = 1.0;
    assert_int_equal(ac_search_objective_eval(obj, 0, g, &s, &tv, &f.err), AC_OK);
    assert_double_close(s, 0.25, 0.0, 0.02);
    assert_true(s <= 0.25);
    ac_search_objective_free(obj);
    ac_search_objective_free(NULL);
    ac_search_space_free(sp);
    fx_free(&f);
}

/* A two-node case, each term by hand: 50/s -> sync function fn (C 10, 100 ms) -> pool db (4
 * servers of 100/s), the objective's four terms with weights 2, 1, 1, 1 (normalised 0.4,
 * 0.2, 0.2, 0.2). Under fn's 300 ms delay and 50% failures over the whole 200 s horizon the
 * fluid function admits C / T_e = 10 / 0.4 s = 25/s (the other 25/s throttled), half of
 * which fail: e2e error rate 12.5 / 50 = 0.25 (norm 1: 0.25); fn's throttle rate
 * T / (T + E) = 25 / (25 + 25) = 0.5 against norm 0.4: capped at 1; e2e loss (12.5 + 25) / 50
 * = 0.75 (norm 1); db's utilisation 12.5 / (4 x 100) = 0.03125 (only the successes go on)
 * against norm 0.05: 0.625. Score 0.4 x 0.25 + 0.2 x 1 + 0.2 x 0.75 + 0.2 x 0.625 = 0.575.
 * Without faults: nothing throttled or failed, db at 50 / 400 = 0.125 (capped: 1): 0.2.
 * Tolerance: the step at t = 0 from the no-fault state relaxes in ~T_e = 0.4 s of 200 s. */
static const char two_xml[] =
    "<architecture name='two' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='50/s'/>\n"
    "    <profile source='s'><point at='0s' rate='50/s'/><point at='200s' rate='50/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' invocation='sync' concurrency='10' duration='100ms' timeout='60s'\n"
    "            keep-alive='1h' retries='0'/>\n"
    "  <pool id='db' servers='4' service-rate='100/s'/>\n"
    "  <route from='fn' to='db'/>\n"
    "  <faults budget='100' seed='3'>\n"
    "    <fault target='fn' delay='0ms..300ms' fail-prob='0..50%'/>\n"
    "    <objective>\n"
    "      <term metric='error-rate' weight='2'/>\n"
    "      <term metric='throttle-rate' target='fn' norm='0.4'/>\n"
    "      <term metric='loss'/>\n"
    "      <term metric='utilization' target='db' norm='0.05'/>\n"
    "    </objective>\n"
    "  </faults>\n"
    "</architecture>\n";

static void test_objective_two_nodes_by_hand(void **state)
{
    static const double metric[4] = {0.25, 0.5, 0.75, 0.03125}, norm[4] = {1.0, 0.4, 1.0, 0.05},
                        weight[4] = {0.4, 0.2, 0.2, 0.2}, score[4] = {0.25, 1.0, 0.75, 0.625};
    fx f;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_term_value tv[4];
    double g[2] = {1.0, 1.0}, s, sum = 0.0;
    (void)state;
    assert_int_equal(fx_parse(&f, two_xml), AC_OK);
    assert_int_equal(ac_search_space_new(f.m, 200.0, &sp, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_new(f.m, sp, NULL, 1.0, 1, &obj, &f.err), AC_OK);
    assert_int_equal(ac_search_objective_nterms(obj), 4);
    assert_int_equal(ac_search_objective_eval(obj, 0, g, &s, tv, &f.err), AC_OK);
    for (size_t i = 0; i < 4; i++) {
        print_message("term %zu: metric %.6g (by hand %.6g), norm %g, weight %g, score %.6g\n", i,
                      tv[i].metric, metric[i], tv[i].norm, tv[i].weight, tv[i].score);
        assert_double_close(tv[i].metric, metric[i], 0.0, 0.01);
        assert_double_close(tv[i].norm, norm[i], 1e-15, 0.0);
        assert_double_close(tv[i].weight, weight[i], 1e-15, 0.0);
        assert_double_close(tv[i].score, score[i], 0.0, 0.01);
        sum += tv[i].weight * tv[i].score;
    }
    assert_true(tv[1].score == 1.0); /* the cap: 0.5 / 0.4 */
    assert_double_close(s, sum, 1e-12, 0.0);
    assert_double_close(s, 0.575, 0.0, 0.005);
    /* no fault: only db's utilisation, 0.125 against 0.05, capped */
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, NULL, &s, tv, &f.err), AC_OK);
    assert_double_close(tv[3].metric, 0.125, 0.0, 0.001);
    assert_true(tv[0].metric < 1e-6 && tv[1].metric < 1e-6 && tv[2].metric < 1e-6);
    assert_double_close(s, 0.2, 0.0, 1e-6);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    fx_free(&f);
}

/* Same seed, jobs 1 and 2: the same best score and genes, to the bit. */
static void test_jobs_deterministic(void **state)
{
    double score[2];
    double genes[2][2];
    size_t at[2];
    fx f;
    (void)state;
    assert_int_equal(fx_parse(&f, fn_xml), AC_OK);
    for (size_t jobs = 1; jobs <= 2; jobs++) {
        ac_search_space *sp = NULL;
        ac_search_objective *obj = NULL;
        ac_search_ga *ga = NULL;
        ac_search_problem pr;
        ac_search_options o;
        const double *x;
        assert_int_equal(ac_search_space_new(f.m, 20.0, &sp, &f.err), AC_OK);
        assert_int_equal(ac_search_objective_new(f.m, sp, NULL, 1.0, jobs, &obj, &f.err), AC_OK);
        pr = ac_search_objective_problem(obj);
        ac_search_options_init(&o);
        o.budget = 24;
        o.population = 8;
        o.jobs = jobs;
        o.seed = 5;
        assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &f.err), AC_OK);
        assert_int_equal(ac_search_ga_run(ga, &f.err), AC_OK);
        score[jobs - 1] = ac_search_ga_best(ga, &x);
        memcpy(genes[jobs - 1], x, sizeof genes[0]);
        at[jobs - 1] = ac_search_ga_best_at(ga);
        ac_search_ga_free(ga);
        ac_search_objective_free(obj);
        ac_search_space_free(sp);
    }
    assert_memory_equal(&score[0], &score[1], sizeof score[0]);
    assert_memory_equal(genes[0], genes[1], sizeof genes[0]);
    assert_int_equal(at[0], at[1]);
    /* the score rises with the fail-prob: the best of 24 has a high one */
    assert_true(score[0] > 0.3);
    fx_free(&f);
}

/* ------------------------------------------------------------ the boundary */

static const char throttle_fmt[] =
    "<architecture name='f' format='1'>\n"
    "  <workload>\n"
    "    <source id='s' to='fn' rate='50/s'/>\n"
    "    <profile source='s'><point at='0s' rate='50/s'/><point at='20s' rate='50/s'/></profile>\n"
    "  </workload>\n"
    "  <function id='fn' concurrency='10' duration='100ms' timeout='60s' keep-alive='1h'/>\n"
    "  <faults budget='40' seed='2'>\n"
    "    <fault target='fn' delay='%s'/>\n"
    "    <objective tau='0.7'><term metric='throttle-rate' target='fn'/></objective>\n"
    "  </faults>\n"
    "</architecture>\n";

/* A single sync function whose only term is its throttle rate: the fluid function admits
 * C / T_e, so the throttled share 1 - C / (lambda T_e) reaches tau at lambda = C / ((1 - tau)
 * T_e): 10 / (0.3 x 0.1 s) = 333.3/s without fault, 10 / (0.3 x 0.2 s) = 166.7/s at the
 * worst delay of 0..100 ms (the search must find it at each probe). */
static void test_boundary_throttle(void **state)
{
    const char *ranges[2] = {"0ms..0ms", "0ms..100ms"};
    const double want[2] = {10.0 / (0.3 * 0.1), 10.0 / (0.3 * 0.2)};
    (void)state;
    for (size_t k = 0; k < 2; k++) {
        char xml[2048];
        fx f;
        ac_search_space *sp = NULL;
        ac_search_objective *obj = NULL;
        ac_search_options o;
        ac_search_boundary b;
        snprintf(xml, sizeof xml, throttle_fmt, ranges[k]);
        assert_int_equal(fx_parse(&f, xml), AC_OK);
        assert_int_equal(ac_search_space_new(f.m, 20.0, &sp, &f.err), AC_OK);
        assert_int_equal(ac_search_space_ngenes(sp), k);
        assert_int_equal(ac_search_objective_new(f.m, sp, NULL, 16.0, 1, &obj, &f.err), AC_OK);
        ac_search_options_init(&o);
        o.budget = 40;
        o.population = 10;
        assert_int_equal(ac_search_boundary_find(f.m, obj, &o, 0.7, 1.0, 16.0, 1e-3, &b, &f.err),
                         AC_OK);
        print_message("boundary %s: %.4f/s (hand %.4f/s), %zu probes, %zu evaluations\n", ranges[k],
                      b.rate, want[k], b.probes, b.evaluations);
        assert_int_equal(b.status, AC_SEARCH_BOUNDARY_FOUND);
        assert_double_close(b.peak_rate, 50.0, 0.0, 1e-12);
        assert_true(b.hi / b.lo <= 1.001);
        /* the bracket holds the answer: to the bisection's tolerance without a gene; with
         * one, the GA's best delay is within 1% of the range's end */
        assert_double_close(b.rate, want[k], 0.0, k == 0 ? 1.5e-3 : 1e-2);
        if (k == 0)
            assert_true(b.lo * 50.0 <= want[0] * (1 + 1e-6) && b.hi * 50.0 >= want[0] * (1 - 1e-6));
        /* out of the bracket */
        assert_int_equal(ac_search_boundary_find(f.m, obj, &o, 0.7, 8.0, 16.0, 1e-3, &b, &f.err),
                         AC_OK);
        assert_int_equal(b.status, AC_SEARCH_BOUNDARY_BELOW);
        assert_int_equal(ac_search_boundary_find(f.m, obj, &o, 0.7, 1.0, 2.0, 1e-3, &b, &f.err),
                         AC_OK);
        assert_int_equal(b.status, AC_SEARCH_BOUNDARY_ABOVE);
        if (k == 1) {
            /* the command: search --boundary on [1/16, 16], the same for jobs 1 and 2 */
            char path[] = "/tmp/ac_search_XXXXXX";
            ac_test_run r1, r2;
            const char *pos;
            ac_test_write_tmp(path, xml);
            r1 = run_ac("search", "--boundary", "--format", "json", path, NULL);
            r2 = run_ac("search", "--boundary", "--format", "json", "--jobs", "2", path, NULL);
            assert_int_equal(r1.status, 0);
            assert_string_equal(r1.out, r2.out);
            assert_non_null(strstr(r1.out, "\"boundary_status\": \"found\""));
            assert_non_null(pos = strstr(r1.out, "\"boundary\": "));
            assert_double_close(strtod(pos + strlen("\"boundary\": "), NULL), want[1], 0.0, 2e-2);
            ac_test_run_free(&r1);
            ac_test_run_free(&r2);
            unlink(path);
        }
        ac_search_objective_free(obj);
        ac_search_space_free(sp);
        fx_free(&f);
    }
}

/* ------------------------------------------------------------ the command */

static void test_command(void **state)
{
    char path[] = "/tmp/ac_search_XXXXXX", p95[] = "/tmp/ac_search_XXXXXX";
    const char *pos;
    ac_test_run a, b, c, d;
    (void)state;
    ac_test_write_tmp(path, fn_xml);
    a = run_ac("search", "--format", "json", "--jobs", "1", "--budget", "30", path, NULL);
    b = run_ac("search", "--format", "json", "--jobs", "2", "--budget", "30", path, NULL);
    c = run_ac("search", "--format", "json", "--jobs", "2", "--budget", "30", path, NULL);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    /* jobs 1 and 2, and a second run: the same bytes */
    assert_string_equal(a.out, b.out);
    assert_string_equal(b.out, c.out);
    assert_non_null(strstr(a.out, "\"method\": \"ga\""));
    assert_non_null(strstr(a.out, "\"evaluations\": 30"));
    assert_non_null(strstr(a.out, "\"fn.fail-prob\": "));
    assert_non_null(pos = strstr(a.out, "\"best_score\": "));
    /* the score is the error rate, at most its value at no delay and 50% (the delay only
     * throttles more, and throttles are not errors): half of the 50/s fail, 0.5 */
    {
        double best = strtod(pos + strlen("\"best_score\": "), NULL);
        assert_true(best > 0.0 && best <= 0.5 + 1e-6);
    }
    ac_test_run_free(&a);
    ac_test_run_free(&b);
    ac_test_run_free(&c);
    d = run_ac("search", "--method", "random", "--seed", "9", "--budget", "10", path, NULL);
    assert_int_equal(d.status, 0);
    assert_non_null(strstr(d.out, "worst case found by random in 10 evaluations (seed 9"));
    assert_non_null(strstr(d.out, "fault fn fail-prob = "));
    ac_test_run_free(&d);
    d = run_ac("search", "--budget", "0", path, NULL);
    assert_int_equal(d.status, 2);
    ac_test_run_free(&d);
    d = run_ac("search", "--jobs", "65", path, NULL);
    assert_int_equal(d.status, 2);
    ac_test_run_free(&d);
    /* a p95 term (the transient's quasi-stationary laws; without a norm against the
     * no-fault value 0.1 ln 20 s): the search runs */
    {
        char xml[2048];
        const char *t = strstr(fn_xml, "<term");
        snprintf(xml, sizeof xml, "%.*s<term metric='p95-latency' target='fn'/>%s",
                 (int)(t - fn_xml), fn_xml, strstr(t, "/>") + 2);
        ac_test_write_tmp(p95, xml);
    }
    d = run_ac("search", "--budget", "10", p95, NULL);
    assert_int_equal(d.status, 0);
    assert_non_null(strstr(d.out, "term p95-latency fn: "));
    assert_non_null(strstr(d.out, "/ norm 0.2995"));
    ac_test_run_free(&d);
    unlink(path);
    unlink(p95);
}

/* -------------------------------------------------------- bad <faults> */

static void expect_diag(const char *faults, const char *rule)
{
    char xml[2048];
    fx f;
    int found = 0;
    snprintf(xml, sizeof xml,
             "<architecture name='b' format='1'>\n"
             "  <workload><source id='s' to='g' rate='10/s'/></workload>\n"
             "  <gateway id='g' rate-limit='100/s'/>\n"
             "  <route from='g' to='q'/>\n"
             "  <queue id='q'/>\n"
             "  <route from='q' to='fn'/>\n"
             "  <function id='fn' concurrency='10' duration='100ms'/>\n"
             "%s"
             "</architecture>\n",
             faults);
    assert_int_equal(fx_parse(&f, xml), AC_EINPUT);
    for (size_t i = 0; i < f.d.count; i++) {
        const ac_diag *d = &f.d.items[i];
        if (strcmp(d->rule, rule) == 0 && d->severity == AC_SEV_ERROR && d->line >= 8 &&
            d->column > 0)
            found = 1;
    }
    if (!found)
        for (size_t i = 0; i < f.d.count; i++)
            print_message("%u:%u %s %s\n", f.d.items[i].line, f.d.items[i].column,
                          f.d.items[i].rule, f.d.items[i].message);
    assert_true(found);
    fx_free(&f);
}

/* M/D/1 (Poisson lambda, service D, rho = lambda D < 1): Erlang's waiting-time law
 * P(W <= t) = (1 - rho) sum_{k=0}^{floor(t/D)} (lambda (k D - t))^k / k! e^{-lambda (k D - t)}
 * (alternating: long double keeps ~1e-7 at lambda t = 15, the case below). */
static double md1_wait_cdf(double lambda, double d, double t)
{
    long double s = 0.0L;
    for (unsigned k = 0; (double)k * d <= t; k++) {
        long double x = (long double)lambda * ((long double)k * d - t), term = expl(-x);
        for (unsigned j = 1; j <= k; j++)
            term *= x / (long double)j;
        s += term;
    }
    return (double)((1.0L - (long double)(lambda * d)) * s);
}

/* A <fault> on a link (target nnodes + l): the GA finds the worst case (the largest
 * capacity-loss over the whole horizon: at = 0) of the end-to-end p95 over 300 s; the
 * simulator's p95 of that plan (30 replications) is the M/D/1 closed form's at the faulted
 * capacity (c' = 55/s, rho = 50/55: T = W + 1/c', p95 0.3023 s), within its interval plus 2%
 * (the fault's onset: the queue fills from rho 0.5 over ~10 s of the 300), and the fluid
 * score, an upper bound (Bonferroni over the stages), lies above it. */
static void test_link_fault(void **state)
{
    static const char xml[] =
        "<architecture name='x' format='1'>\n"
        "  <workload><source id='s' to='a' rate='50/s'/></workload>\n"
        "  <pool id='a' servers='100' service-rate='10000/s'/>\n"
        "  <pool id='b' servers='100' service-rate='10000/s'/>\n"
        "  <route from='a' to='b'/>\n"
        "  <link id='net' from='a' to='b' capacity='100/s'/>\n"
        "  <faults>\n"
        "    <fault target='net' capacity-loss='0..0.45' at='0s..150s'/>\n"
        "    <objective tau='0.7'><term metric='p95-latency' norm='1s'/></objective>\n"
        "  </faults>\n"
        "</architecture>\n";
    ac_transient_options to;
    ac_search_space *sp = NULL;
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_problem pr;
    ac_search_options so;
    ac_analysis_confirm_options co;
    ac_analysis_confirmation conf;
    ac_search_term_value tv[1];
    ac_transient_fault plan[1], corner[1];
    const double *genes;
    double best, score, lo = 0.0, hi = 2.0, p95;
    fx f;
    (void)state;
    assert_int_equal(fx_parse(&f, xml), AC_OK);
    ac_transient_options_init(&to);
    to.horizon = 300.0;
    assert_int_equal(ac_search_space_new(f.m, 300.0, &sp, &f.err), AC_OK);
    assert_int_equal(ac_search_space_nfaults(sp), 1);
    assert_string_equal(ac_search_space_gene(sp, 0)->name, "net.capacity-loss");
    assert_int_equal(ac_search_objective_new(f.m, sp, &to, 1.0, 1, &obj, &f.err), AC_OK);
    pr = ac_search_objective_problem(obj);
    ac_search_options_init(&so);
    so.budget = 200;
    so.seed = 1;
    assert_int_equal(ac_search_ga_new(&pr, &so, &ga, &f.err), AC_OK);
    assert_int_equal(ac_search_ga_run(ga, &f.err), AC_OK);
    best = ac_search_ga_best(ga, &genes);
    {
        /* the polish of the best, as `search` does (a tenth of the budget + 2 per gene) */
        double g[2];
        size_t evals = 0;
        memcpy(g, genes, sizeof g);
        assert_int_equal(ac_search_polish(&pr, g, &best, 24, &evals, &f.err), AC_OK);
        ac_search_space_decode(sp, g, plan);
    }
    print_message("link fault: capacity-loss %.4f from %.2f s, score %.6f\n", plan[0].value,
                  plan[0].start, best);
    assert_int_equal(plan[0].target, f.m->nnodes); /* link 0 */
    assert_true(ac_search_target_is_link(f.m, plan[0].target));
    assert_string_equal(ac_search_target_id(f.m, plan[0].target), "net");
    assert_int_equal(plan[0].attr, AC_TRANSIENT_FAULT_CAPACITY_LOSS);
    assert_true(plan[0].value > 0.44);
    assert_true(plan[0].start < 5.0);
    /* the corner: the whole capacity-loss over the whole horizon */
    corner[0] =
        (ac_transient_fault){f.m->nnodes, AC_TRANSIENT_FAULT_CAPACITY_LOSS, 0.45, 0.0, INFINITY};
    assert_int_equal(ac_search_objective_eval_plan(obj, 0, corner, &score, tv, &f.err), AC_OK);
    assert_true(best >= 0.99 * score);
    {
        /* no fault: rho 0.5, far below */
        double none;
        assert_int_equal(ac_search_objective_eval_plan(obj, 0, NULL, &none, NULL, &f.err), AC_OK);
        assert_true(none < 0.5 * score);
    }
    for (int it = 0; it < 80; it++) {
        double mid = 0.5 * (lo + hi);
        *(md1_wait_cdf(50.0, 1.0 / 55.0, mid) < 0.95 ? &lo : &hi) = mid;
    }
    p95 = hi + 1.0 / 55.0;
    assert_double_close(p95, 0.30233, 0.0, 1e-4);
    assert_true(score >= p95); /* the fluid's upper bound */
    ac_analysis_confirm_options_init(&co);
    co.replications = 30;
    assert_int_equal(
        ac_analysis_confirm(f.m, corner, 1, 1.0, 300.0, tv, 1, score, &co, &conf, &f.err), AC_OK);
    assert_true(conf.computed);
    print_message("link fault: fluid %.4f (upper bound), simulated %.4f +- %.4f, M/D/1 %.4f\n",
                  score, conf.score, conf.ci95, p95);
    assert_true(fabs(conf.score - p95) <= conf.ci95 + 0.02 * p95);
    ac_search_ga_free(ga);
    ac_search_objective_free(obj);
    ac_search_space_free(sp);
    fx_free(&f);
}

static void test_bad_faults(void **state)
{
    (void)state;
    expect_diag("  <faults>\n    <fault target='fn' delay='2s..1s'/>\n  </faults>\n", "AC016");
    expect_diag("  <faults>\n    <fault target='fn' fail-prob='0..10%' at='5s..1s'/>\n"
                "  </faults>\n",
                "AC016");
    expect_diag("  <faults>\n    <fault target='q' delay='0s..1s'/>\n  </faults>\n", "AC022");
    expect_diag("  <faults>\n    <fault target='g' fail-prob='0..10%'/>\n  </faults>\n", "AC022");
    expect_diag("  <faults>\n    <fault target='fn' servers-down='0..2'/>\n  </faults>\n", "AC022");
    expect_diag("  <faults budget='0'>\n    <fault target='fn' delay='0s..1s'/>\n  </faults>\n",
                "AC011");
    expect_diag("  <faults budget='1000000000'>\n    <fault target='fn' delay='0s..1s'/>\n"
                "  </faults>\n",
                "AC015");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbx_bounds_and_mean),
        cmocka_unit_test(test_mutations_and_blend_bounds),
        cmocka_unit_test(test_tournament_law),
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_ga_vs_grid_and_random),
        cmocka_unit_test(test_ga_options),
        cmocka_unit_test(test_convergence_seeds),
        cmocka_unit_test(test_objective_closed_form),
        cmocka_unit_test(test_objective_two_nodes_by_hand),
        cmocka_unit_test(test_jobs_deterministic),
        cmocka_unit_test(test_link_fault),
        cmocka_unit_test(test_bad_faults),
        cmocka_unit_test(test_command),
        cmocka_unit_test(test_boundary_throttle),
    };
    gsl_set_error_handler_off();
    if (getenv("AC_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("AC_TEST_FILTER"));
    return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
