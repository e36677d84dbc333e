/*
 * The genetic algorithm of the worst-case search (include/archcheck/search.h): a
 * generational GA with elitism on genes in [0, 1], maximising the problem's score.
 *
 * Generation 0 is uniform. Each next generation: the population sorted by score (ties: the
 * lower slot first), the `elite` best kept as they are, then pairs of parents drawn by the
 * selection operator bred by the crossover (with crossover_rate; else copied) and mutated;
 * a share `immigrants` of the bred slots (the last ones) is replaced by uniform individuals,
 * which keeps the exploration of random search where one broad peak would otherwise take the
 * whole population (a two-peak test function: the global peak found by 14 of 100 seeds
 * without immigrants, 51 with 0.4; tests/test_search.c); at most the budget's remaining
 * evaluations are bred, the other slots keep the sorted
 * previous generation. Every random draw is made here, on the calling thread, in a fixed
 * order; the scores come from the pool by slot: the run is the same for any jobs.
 * With AC_SEARCH_RANDOM each step is a uniform batch instead (random.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_heapsort.h>

#include "search/internal.h"

typedef struct ranked {
    double score;
    size_t slot;
} ranked;

struct ac_search_ga {
    const ac_search_problem *problem;
    ac_search_options opt;
    size_t n, pop;
    gsl_rng *rng;
    ac_search_pool *pool;
    double *genes, *next; /* pop x n */
    double *score, *next_score;
    ranked *rank;
    /* screening (ac_search_problem.screen): the slots re-scored in full, packed */
    double *pack, *pack_score;
    size_t *pack_slot;
    unsigned char *exact; /* per slot of next: scored by eval */
    double *top;          /* the largest scores (threshold) */
    double *best;
    double best_score;
    size_t best_at, evals, generation;
    size_t nwarm; /* individuals of `genes` that generation 0 takes as they are */
};

void ac_search_options_init(ac_search_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->method = AC_SEARCH_GA;
    opt->budget = 2000;
    opt->population = 20;
    opt->elite = 2;
    opt->crossover_rate = 0.9;
    opt->mutation_rate = 0.0;
    opt->selection = &ac_search_tournament;
    opt->tournament = 2;
    opt->crossover = &ac_search_sbx;
    opt->crossover_param = 15.0;
    opt->mutation = &ac_search_polynomial;
    opt->mutation_param = 20.0;
    opt->seed = 1;
    opt->jobs = 1;
    opt->immigrants = 0.4;
}

static int options_check(const ac_search_options *o, size_t n, ac_error *err)
{
    if (n == 0 || n > AC_SEARCH_GENES_MAX)
        return ac_error_set(err, AC_EINVAL, "search: the space has %zu genes (1..%d)", n,
                            AC_SEARCH_GENES_MAX);
    if (o->budget == 0 || o->budget > AC_SEARCH_BUDGET_MAX)
        return ac_error_set(err, AC_EINVAL, "search: budget %zu is not in 1..%d", o->budget,
                            AC_SEARCH_BUDGET_MAX);
    if (o->population < 2 || o->elite >= o->population || o->tournament == 0 ||
        !(o->crossover_rate >= 0.0 && o->crossover_rate <= 1.0) ||
        !(o->mutation_rate >= 0.0 && o->mutation_rate <= 1.0) ||
        !(o->immigrants >= 0.0 && o->immigrants <= 1.0) || o->selection == NULL ||
        o->crossover == NULL || o->mutation == NULL || o->jobs == 0 ||
        o->jobs > AC_SEARCH_JOBS_MAX ||
        (o->method != AC_SEARCH_GA && o->method != AC_SEARCH_RANDOM))
        return ac_error_set(err, AC_EINVAL,
                            "search: invalid options (population >= 2, elite < "
                            "population, rates in [0, 1], jobs in 1..%d)",
                            AC_SEARCH_JOBS_MAX);
    return 0;
}

int ac_search_ga_new(const ac_search_problem *problem, const ac_search_options *opt,
                     ac_search_ga **out, ac_error *err)
{
    ac_search_ga *ga;
    ac_search_options o;
    size_t n = problem != NULL ? problem->ngenes : 0;
    int rc;
    *out = NULL;
    if (opt != NULL)
        o = *opt;
    else
        ac_search_options_init(&o);
    if ((rc = options_check(&o, n, err)) != 0)
        return rc;
    if (o.mutation_rate == 0.0)
        o.mutation_rate = 1.0 / (double)n;
    ga = calloc(1, sizeof *ga);
    if (ga == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (search)");
    ga->problem = problem;
    ga->opt = o;
    ga->n = n;
    ga->pop = o.population;
    ga->best_score = -INFINITY;
    ga->rng = gsl_rng_alloc(gsl_rng_mt19937);
    ga->genes = calloc(ga->pop * n, sizeof *ga->genes);
    ga->next = calloc(ga->pop * n, sizeof *ga->next);
    ga->score = calloc(ga->pop, sizeof *ga->score);
    ga->next_score = calloc(ga->pop, sizeof *ga->next_score);
    ga->rank = calloc(ga->pop, sizeof *ga->rank);
    ga->best = calloc(n, sizeof *ga->best);
    ga->pack = calloc(ga->pop * n, sizeof *ga->pack);
    ga->pack_score = calloc(ga->pop, sizeof *ga->pack_score);
    ga->pack_slot = calloc(ga->pop, sizeof *ga->pack_slot);
    ga->exact = calloc(ga->pop, 1);
    ga->top = calloc(ga->pop + 1, sizeof *ga->top);
    if (ga->rng == NULL || ga->genes == NULL || ga->next == NULL || ga->score == NULL ||
        ga->next_score == NULL || ga->rank == NULL || ga->best == NULL || ga->pack == NULL ||
        ga->pack_score == NULL || ga->pack_slot == NULL || ga->exact == NULL || ga->top == NULL) {
        ac_search_ga_free(ga);
        return ac_error_set(err, AC_ENOMEM, "out of memory (search)");
    }
    gsl_rng_set(ga->rng, o.seed);
    if ((rc = ac_search_pool_new(problem, o.jobs, &ga->pool, err)) != 0) {
        ac_search_ga_free(ga);
        return rc;
    }
    *out = ga;
    return 0;
}

void ac_search_ga_free(ac_search_ga *ga)
{
    if (ga == NULL)
        return;
    ac_search_pool_free(ga->pool);
    if (ga->rng != NULL)
        gsl_rng_free(ga->rng);
    free(ga->genes);
    free(ga->next);
    free(ga->score);
    free(ga->next_score);
    free(ga->rank);
    free(ga->pack);
    free(ga->pack_score);
    free(ga->pack_slot);
    free(ga->exact);
    free(ga->top);
    free(ga->best);
    free(ga);
}

static int rank_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->slot < y->slot ? -1 : (x->slot > y->slot);
}

/*
 * The score above which a plan could be kept: the K-th largest score of next (NAN left
 * out), K the elite (GA), or the largest with the best so far (random search, or no
 * elite: the best is not in the population then).
 */
static double keep_threshold(const ac_search_ga *ga)
{
    int with_best = ga->opt.method == AC_SEARCH_RANDOM || ga->opt.elite == 0;
    size_t K = with_best ? 1 : ga->opt.elite, nt = 0;
    double *top = ga->top; /* the K largest, descending */
    for (size_t i = 0; i <= ga->pop; i++) {
        double v = i < ga->pop ? ga->next_score[i] : (with_best ? ga->best_score : -INFINITY);
        size_t k;
        if (isnan(v) || (nt == K && !(v > top[K - 1])))
            continue;
        k = nt < K ? nt++ : K - 1;
        for (; k > 0 && top[k - 1] < v; k--)
            top[k] = top[k - 1];
        top[k] = v;
    }
    return nt == K ? top[K - 1] : -INFINITY;
}

/*
 * Screening (ac_search_problem.screen): slots [from, from + count) of next scored by the
 * screen, then those whose estimate is NAN or at least keep_threshold - screen_eps scored
 * by eval (packed, one batch). A slot left with its estimate is below every plan that can
 * be kept: its true score < threshold - eps + eps / 2, while each of the K slots at or
 * above the threshold scores at least threshold - eps / 2 (the screen's error below
 * eps / 2: tests/test_search_screen.c). The elite and the best are so eval's.
 */
static int screen_batch(ac_search_ga *ga, size_t from, size_t count, ac_error *err)
{
    size_t n = ga->n, np = 0;
    double thr;
    int rc =
        ac_search_pool_eval(ga->pool, ga->next + from * n, ga->next_score + from, count, 1, err);
    if (rc != 0)
        return rc;
    thr = keep_threshold(ga) - ga->problem->screen_eps;
    for (size_t i = from; i < from + count; i++) {
        ga->exact[i] = isnan(ga->next_score[i]) || ga->next_score[i] >= thr;
        if (!ga->exact[i])
            continue;
        memcpy(ga->pack + np * n, ga->next + i * n, n * sizeof *ga->pack);
        ga->pack_slot[np++] = i;
    }
    rc = np > 0 ? ac_search_pool_eval(ga->pool, ga->pack, ga->pack_score, np, 0, err) : 0;
    for (size_t k = 0; rc == 0 && k < np; k++)
        ga->next_score[ga->pack_slot[k]] = ga->pack_score[k];
    return rc;
}

/* Score slots [from, from + count) of ga->next and keep the best (of eval's scores). */
static int score_batch(ac_search_ga *ga, size_t from, size_t count, ac_error *err)
{
    int rc;
    if (ga->problem->screen != NULL) {
        rc = screen_batch(ga, from, count, err);
    } else {
        rc = ac_search_pool_eval(ga->pool, ga->next + from * ga->n, ga->next_score + from, count, 0,
                                 err);
        memset(ga->exact + from, 1, count);
    }
    if (rc != 0)
        return rc;
    for (size_t i = from; i < from + count; i++) {
        double s = ga->next_score[i];
        ga->evals++;
        if (ga->exact[i] && s > ga->best_score) {
            ga->best_score = s;
            ga->best_at = ga->evals;
            memcpy(ga->best, ga->next + i * ga->n, ga->n * sizeof *ga->best);
        }
    }
    return 0;
}

/* The population sorted by score into next/next_score; the elites and the kept slots. */
static void sort_into_next(ac_search_ga *ga)
{
    for (size_t i = 0; i < ga->pop; i++)
        ga->rank[i] = (ranked){ga->score[i], i};
    gsl_heapsort(ga->rank, ga->pop, sizeof *ga->rank, rank_cmp); /* no allocation */
    for (size_t i = 0; i < ga->pop; i++) {
        memcpy(ga->next + i * ga->n, ga->genes + ga->rank[i].slot * ga->n,
               ga->n * sizeof *ga->next);
        ga->next_score[i] = ga->rank[i].score;
    }
}

/* Breed slots [from, from + count) of next from the current population. */
static void breed(ac_search_ga *ga, size_t from, size_t count)
{
    const ac_search_options *o = &ga->opt;
    size_t n = ga->n;
    for (size_t i = from; i < from + count; i += 2) {
        size_t a = o->selection->select(ga->score, ga->pop, o->tournament, ga->rng);
        size_t b = o->selection->select(ga->score, ga->pop, o->tournament, ga->rng);
        double *c1 = ga->next + i * n;
        /* The second child goes to the next slot; with one slot left both children are
         * written to it (the second stays). */
        double *c2 = i + 1 < from + count ? ga->next + (i + 1) * n : NULL;
        if (gsl_rng_uniform(ga->rng) < o->crossover_rate) {
            if (c2 != NULL) {
                o->crossover->cross(ga->genes + a * n, ga->genes + b * n, c1, c2, n,
                                    o->crossover_param, ga->rng);
            } else {
                o->crossover->cross(ga->genes + a * n, ga->genes + b * n, c1, c1, n,
                                    o->crossover_param, ga->rng);
            }
        } else {
            memcpy(c1, ga->genes + a * n, n * sizeof *c1);
            if (c2 != NULL)
                memcpy(c2, ga->genes + b * n, n * sizeof *c2);
        }
        o->mutation->mutate(c1, n, o->mutation_rate, o->mutation_param, ga->rng);
        if (c2 != NULL)
            o->mutation->mutate(c2, n, o->mutation_rate, o->mutation_param, ga->rng);
    }
}

/* Swap next into the population. */
static void advance(ac_search_ga *ga)
{
    double *t = ga->genes, *s = ga->score;
    ga->genes = ga->next;
    ga->next = t;
    ga->score = ga->next_score;
    ga->next_score = s;
    ga->generation++;
}

int ac_search_ga_step(ac_search_ga *ga, int *done, ac_error *err)
{
    size_t left = ga->opt.budget - ga->evals, from, count;
    int rc;
    *done = left == 0;
    if (left == 0)
        return 0;
    if (ga->generation == 0 || ga->opt.method == AC_SEARCH_RANDOM) {
        /* A uniform batch; in a partial last batch, the unscored slots keep -inf. */
        count = left < ga->pop ? left : ga->pop;
        ac_search_random_batch(ga->next, ga->pop, ga->n, ga->rng);
        if (ga->generation == 0 && ga->nwarm > 0)
            memcpy(ga->next, ga->genes, ga->nwarm * ga->n * sizeof *ga->next);
        for (size_t i = 0; i < ga->pop; i++)
            ga->next_score[i] = -INFINITY;
        from = 0;
    } else {
        size_t room = ga->pop - ga->opt.elite;
        sort_into_next(ga);
        from = ga->opt.elite;
        count = left < room ? left : room;
        breed(ga, from, count);
        /* random immigrants: the last bred slots are replaced by uniform individuals */
        {
            size_t imm = (size_t)floor(ga->opt.immigrants * (double)count + 0.5);
            ac_search_random_batch(ga->next + (from + count - imm) * ga->n, imm, ga->n, ga->rng);
        }
    }
    rc = score_batch(ga, from, count, err);
    if (rc != 0)
        return rc;
    advance(ga);
    *done = ga->evals >= ga->opt.budget;
    return 0;
}

int ac_search_ga_run(ac_search_ga *ga, ac_error *err)
{
    int done = 0, rc = 0;
    while (!done && rc == 0)
        rc = ac_search_ga_step(ga, &done, err);
    return rc;
}

int ac_search_ga_warm(ac_search_ga *ga, const double *genes, size_t count, ac_error *err)
{
    if (ga->generation != 0)
        return ac_error_set(err, AC_EINVAL,
                            "search: a warm start must come before the first "
                            "step");
    if (count > ga->pop)
        count = ga->pop;
    for (size_t i = 0; i < count * ga->n; i++) {
        double g = genes[i];
        ga->genes[i] = g > 0.0 ? (g < 1.0 ? g : 1.0) : 0.0;
    }
    ga->nwarm = count;
    return 0;
}

size_t ac_search_ga_population(const ac_search_ga *ga, const double **out)
{
    *out = ga->genes;
    return ga->generation > 0 ? ga->pop : 0;
}

double ac_search_ga_best(const ac_search_ga *ga, const double **out)
{
    if (out != NULL)
        *out = ga->best;
    return ga->best_score;
}

size_t ac_search_ga_evaluations(const ac_search_ga *ga)
{
    return ga->evals;
}

size_t ac_search_ga_best_at(const ac_search_ga *ga)
{
    return ga->best_at;
}
