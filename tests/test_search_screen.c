/*
 * Screening (include/archcheck/search.h, AC_SEARCH_SCREEN_*): the screen's error against
 * the full score over 2,500 plans of samples/faas-cascade.xml stays below half the margin
 * AC_SEARCH_SCREEN_EPS (what ga.c's and polish.c's argument needs), and a search with the
 * screen finds the same worst case, to the bit, as without it (GA and random, with the
 * polish, jobs 1 and 2) while scoring fewer plans in full.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_rng.h>

#include "archcheck/parser.h"
#include "archcheck/search.h"
#include "tests/helpers.h"

#define NPLANS  2500
#define NCORNER 500 /* of them, plans with genes at the ranges' ends (where worst cases lie) */

typedef struct fx {
    ac_model *m;
    ac_search_space *sp;
    size_t n;
} fx;

static void fx_init(fx *f)
{
    ac_diag_list d;
    ac_error err;
    ac_transient_options to;
    memset(f, 0, sizeof *f);
    memset(&err, 0, sizeof err);
    ac_diag_list_init(&d);
    assert_int_equal(
        ac_parser_parse_file(AC_SOURCE_DIR "/samples/faas-cascade.xml", &f->m, &d, &err), AC_OK);
    ac_diag_list_clear(&d);
    ac_transient_options_init(&to);
    assert_int_equal(ac_search_space_new(f->m, ac_transient_horizon(f->m, &to), &f->sp, &err),
                     AC_OK);
    f->n = ac_search_space_ngenes(f->sp);
    assert_true(f->n > 0 && f->n <= 16);
}

static void fx_free(fx *f)
{
    ac_search_space_free(f->sp);
    ac_model_free(f->m);
}

typedef struct half {
    ac_search_problem pr;
    const double *genes; /* NPLANS x n */
    size_t n, job;
    double max_err;
    size_t at, nan;
    int rc;
} half;

/* Plans job, job + 2, ...: |screen - full|, the largest and where. */
static void *run_half(void *arg)
{
    half *h = arg;
    ac_error err;
    memset(&err, 0, sizeof err);
    for (size_t k = h->job; k < NPLANS && h->rc == 0; k += 2) {
        double s, full;
        h->rc = h->pr.screen(h->pr.ctx, h->job, h->genes + k * h->n, &s, &err);
        if (h->rc == 0)
            h->rc = h->pr.eval(h->pr.ctx, h->job, h->genes + k * h->n, &full, &err);
        if (h->rc != 0)
            break;
        if (isnan(s)) {
            h->nan++;
            continue;
        }
        if (fabs(s - full) > h->max_err) {
            h->max_err = fabs(s - full);
            h->at = k;
        }
    }
    return NULL;
}

static void test_screen_error(void **state)
{
    ac_search_objective *obj = NULL;
    ac_error err;
    half h[2];
    pthread_t th;
    double *genes, max_err;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    fx f;
    (void)state;
    fx_init(&f);
    memset(&err, 0, sizeof err);
    genes = malloc(NPLANS * f.n * sizeof *genes);
    assert_non_null(genes);
    gsl_rng_set(rng, 12);
    for (size_t k = 0; k < NPLANS; k++)
        for (size_t g = 0; g < f.n; g++) {
            double u = gsl_rng_uniform(rng);
            if (k < NCORNER) /* each gene at 0, at 1 or uniform */
                u = u < 1.0 / 3 ? 0.0 : u < 2.0 / 3 ? 1.0 : gsl_rng_uniform(rng);
            genes[k * f.n + g] = u;
        }
    assert_int_equal(ac_search_objective_new(f.m, f.sp, NULL, 1.0, 2, &obj, &err), AC_OK);
    for (size_t j = 0; j < 2; j++) {
        memset(&h[j], 0, sizeof h[j]);
        h[j].pr = ac_search_objective_problem(obj);
        h[j].genes = genes;
        h[j].n = f.n;
        h[j].job = j;
    }
    assert_non_null(h[0].pr.screen);
    assert_true(h[0].pr.screen_eps == AC_SEARCH_SCREEN_EPS);
    assert_int_equal(pthread_create(&th, NULL, run_half, &h[1]), 0);
    run_half(&h[0]);
    pthread_join(th, NULL);
    assert_int_equal(h[0].rc, 0);
    assert_int_equal(h[1].rc, 0);
    max_err = fmax(h[0].max_err, h[1].max_err);
    print_message("screen (rtol %g, atol %g) vs full over %d plans: max |error| %.3g (plan %zu), "
                  "%zu without a screened score; eps %g\n",
                  AC_SEARCH_SCREEN_RTOL, AC_SEARCH_SCREEN_ATOL, NPLANS, max_err,
                  h[0].max_err >= h[1].max_err ? h[0].at : h[1].at, h[0].nan + h[1].nan,
                  AC_SEARCH_SCREEN_EPS);
    assert_true(max_err > 0.0); /* the screen is looser: it does differ */
    /* the argument of ga.c needs the error below eps / 2; a margin of 2 more on top */
    assert_true(4.0 * max_err < AC_SEARCH_SCREEN_EPS);
    ac_search_objective_free(obj);
    free(genes);
    gsl_rng_free(rng);
    fx_free(&f);
}

typedef struct outcome {
    double best, polished;
    double genes[16];
    size_t best_at, evals, polish_evals, failures;
    ac_search_counts n;
} outcome;

/* A search of `budget` and its polish (as search/boundary.c's probe), screening on or off. */
static void search_once(fx *f, ac_search_method method, size_t jobs, int screen, outcome *out)
{
    ac_search_objective *obj = NULL;
    ac_search_ga *ga = NULL;
    ac_search_problem pr;
    ac_search_options o;
    ac_error err;
    const double *g;
    memset(&err, 0, sizeof err);
    memset(out, 0, sizeof *out);
    assert_int_equal(ac_search_objective_new(f->m, f->sp, NULL, 1.0, jobs, &obj, &err), AC_OK);
    assert_int_equal(ac_search_objective_screen(obj, screen, &err), AC_OK);
    pr = ac_search_objective_problem(obj);
    ac_search_options_init(&o);
    o.method = method;
    o.budget = 160;
    o.jobs = jobs;
    o.seed = 3;
    assert_int_equal(ac_search_ga_new(&pr, &o, &ga, &err), AC_OK);
    assert_int_equal(ac_search_ga_run(ga, &err), AC_OK);
    out->best = ac_search_ga_best(ga, &g);
    memcpy(out->genes, g, f->n * sizeof *g);
    out->best_at = ac_search_ga_best_at(ga);
    out->evals = ac_search_ga_evaluations(ga);
    out->polished = out->best;
    assert_int_equal(
        ac_search_polish(&pr, out->genes, &out->polished, 40, &out->polish_evals, &err), AC_OK);
    out->failures = ac_search_objective_failures(obj);
    ac_search_objective_counts(obj, &out->n);
    ac_search_ga_free(ga);
    ac_search_objective_free(obj);
}

static void same(const fx *f, const outcome *a, const outcome *b)
{
    assert_memory_equal(&a->best, &b->best, sizeof a->best);
    assert_memory_equal(&a->polished, &b->polished, sizeof a->polished);
    assert_memory_equal(a->genes, b->genes, f->n * sizeof a->genes[0]);
    assert_int_equal(a->best_at, b->best_at);
    assert_int_equal(a->evals, b->evals);
    assert_int_equal(a->polish_evals, b->polish_evals);
    assert_int_equal(a->failures, b->failures);
}

static void test_screen_same_search(void **state)
{
    static const ac_search_method methods[2] = {AC_SEARCH_GA, AC_SEARCH_RANDOM};
    fx f;
    (void)state;
    fx_init(&f);
    for (size_t k = 0; k < 2; k++) {
        outcome off, on, on2;
        search_once(&f, methods[k], 1, 0, &off);
        search_once(&f, methods[k], 1, 1, &on);
        search_once(&f, methods[k], 2, 1, &on2);
        print_message("%s: best %.10f (polished %.10f); of %zu plans, without the screen %zu "
                      "integrated in full (%zu from the cache); with it %zu screened (%zu from "
                      "the cache), %zu in full (%zu)\n",
                      k == 0 ? "GA" : "random", on.best, on.polished, off.evals + off.polish_evals,
                      off.n.full, off.n.full_hits, on.n.screened, on.n.screen_hits, on.n.full,
                      on.n.full_hits);
        same(&f, &off, &on);
        same(&f, &off, &on2);
        assert_int_equal(off.n.screened + off.n.screen_hits, 0);
        assert_int_equal(off.n.full + off.n.full_hits, off.evals + off.polish_evals);
        assert_int_equal(on.n.screened + on.n.screen_hits, on.evals + on.polish_evals);
        assert_true(2 * on.n.full < off.n.full); /* the screen spares most full evaluations */
    }
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_screen_same_search),
        cmocka_unit_test(test_screen_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
