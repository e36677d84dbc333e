/*
 * The evaluation pool: jobs - 1 threads started once, plus the caller, score one batch per
 * call; slot i is scored by job i mod jobs and written to score[i], so the scores do not
 * depend on the number of jobs. A mutex and two condition variables hand each batch over; nothing
 * is allocated per batch.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/internal.h"

typedef struct worker {
    ac_search_pool *pool;
    size_t job;
    int status; /* of the lowest failed slot of the batch */
    size_t bad; /* that slot, SIZE_MAX if none */
    ac_error err;
    pthread_t thread;
} worker;

struct ac_search_pool {
    const ac_search_problem *problem;
    size_t jobs; /* the threads that run: started threads + the caller */
    pthread_mutex_t lock;
    pthread_cond_t go, finished;
    unsigned long batch; /* incremented per batch */
    size_t pending;      /* threads still scoring the batch */
    int quit;
    const double *genes; /* the batch */
    double *score;
    size_t count;
    int screen;      /* the batch is scored by the problem's screen */
    worker *workers; /* workers[0] is the caller */
};

static void run_slots(worker *w)
{
    const ac_search_pool *p = w->pool;
    size_t n = p->problem->ngenes;
    w->status = 0;
    w->bad = SIZE_MAX;
    ac_error_clear(&w->err);
    int (*fn)(void *, size_t, const double *, double *, ac_error *) =
        p->screen ? p->problem->screen : p->problem->eval;
    for (size_t i = w->job; i < p->count; i += p->jobs) {
        int rc = fn(p->problem->ctx, w->job, p->genes + i * n, &p->score[i], &w->err);
        if (rc != 0) {
            w->status = rc;
            w->bad = i;
            return;
        }
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    ac_search_pool *p = w->pool;
    unsigned long seen = 0;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->batch == seen && !p->quit)
            pthread_cond_wait(&p->go, &p->lock);
        seen = p->batch;
        if (p->quit) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        pthread_mutex_unlock(&p->lock);
        run_slots(w);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0)
            pthread_cond_signal(&p->finished);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

int ac_search_pool_new(const ac_search_problem *problem, size_t jobs, ac_search_pool **out,
                       ac_error *err)
{
    ac_search_pool *p;
    *out = NULL;
    if (jobs == 0 || jobs > AC_SEARCH_JOBS_MAX)
        return ac_error_set(err, AC_EINVAL, "jobs must be in 1..%d", AC_SEARCH_JOBS_MAX);
    p = calloc(1, sizeof *p);
    if (p == NULL || (p->workers = calloc(jobs, sizeof *p->workers)) == NULL) {
        free(p);
        return ac_error_set(err, AC_ENOMEM, "out of memory (search pool)");
    }
    p->problem = problem;
    p->jobs = 1;
    for (size_t j = 0; j < jobs; j++) {
        p->workers[j].pool = p;
        p->workers[j].job = j;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->finished, NULL);
    /* A thread that cannot start leaves fewer jobs (the scores are the same). */
    for (size_t j = 1; j < jobs; j++) {
        if (pthread_create(&p->workers[j].thread, NULL, worker_main, &p->workers[j]) != 0)
            break;
        p->jobs = j + 1;
    }
    *out = p;
    return 0;
}

int ac_search_pool_eval(ac_search_pool *pool, const double *genes, double *score, size_t count,
                        int screen, ac_error *err)
{
    const worker *first = NULL;
    pool->screen = screen && pool->problem->screen != NULL;
    pool->genes = genes;
    pool->score = score;
    pool->count = count;
    if (pool->jobs > 1) {
        pthread_mutex_lock(&pool->lock);
        pool->pending = pool->jobs - 1;
        pool->batch++;
        pthread_cond_broadcast(&pool->go);
        pthread_mutex_unlock(&pool->lock);
    }
    run_slots(&pool->workers[0]);
    if (pool->jobs > 1) {
        pthread_mutex_lock(&pool->lock);
        while (pool->pending > 0)
            pthread_cond_wait(&pool->finished, &pool->lock);
        pthread_mutex_unlock(&pool->lock);
    }
    for (size_t j = 0; j < pool->jobs; j++) {
        const worker *w = &pool->workers[j];
        if (w->status != 0 && (first == NULL || w->bad < first->bad))
            first = w;
    }
    if (first == NULL)
        return 0;
    if (err != NULL && err->code == 0)
        *err = first->err;
    return first->status;
}

void ac_search_pool_free(ac_search_pool *pool)
{
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->quit = 1;
    pthread_cond_broadcast(&pool->go);
    pthread_mutex_unlock(&pool->lock);
    for (size_t j = 1; j < pool->jobs; j++)
        pthread_join(pool->workers[j].thread, NULL);
    pthread_cond_destroy(&pool->go);
    pthread_cond_destroy(&pool->finished);
    pthread_mutex_destroy(&pool->lock);
    free(pool->workers);
    free(pool);
}
