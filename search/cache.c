/*
 * The plan cache of the objective (search/internal.h): the scores of recently evaluated
 * plans, per job, so that a plan the GA breeds again (a clone of a parent: SBX of equal
 * parents and no gene mutated; on faas-cascade 14 to 24 of 400 GA evaluations, seeds 1-3)
 * is not integrated again. An evaluation is a function of (plan, scale) alone, to the bit
 * (solver/transient.c ws_prime), so a hit gives the bits the evaluation would. Direct
 * mapped: 2^AC_SEARCH_CACHE_BITS entries indexed by a hash of the plan's fields, a later
 * plan replacing an earlier one in its entry; an entry is compared field by field (never
 * its padding). Allocates at _new only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/internal.h"

#define CACHE_N ((size_t)1 << AC_SEARCH_CACHE_BITS)

typedef struct entry {
    uint64_t epoch; /* 0: empty; else the cache's epoch when stored */
    double score[2];
    int status[2];
    unsigned char have[2];
} entry;

struct ac_search_cache {
    size_t nfaults;
    uint64_t epoch;
    entry *e;
    ac_transient_fault *plans; /* CACHE_N x nfaults */
};

int ac_search_cache_new(size_t nfaults, ac_search_cache **out)
{
    ac_search_cache *c;
    *out = NULL;
    if (nfaults == 0 || nfaults > AC_SEARCH_CACHE_FAULTS_MAX)
        return AC_OK; /* no cache */
    c = calloc(1, sizeof *c);
    if (c == NULL)
        return AC_ENOMEM;
    c->nfaults = nfaults;
    c->epoch = 1;
    c->e = calloc(CACHE_N, sizeof *c->e);
    c->plans = calloc(CACHE_N * nfaults, sizeof *c->plans);
    if (c->e == NULL || c->plans == NULL) {
        ac_search_cache_free(c);
        return AC_ENOMEM;
    }
    *out = c;
    return AC_OK;
}

void ac_search_cache_free(ac_search_cache *c)
{
    if (c == NULL)
        return;
    free(c->e);
    free(c->plans);
    free(c);
}

void ac_search_cache_clear(ac_search_cache *c)
{
    if (c != NULL)
        c->epoch++;
}

/* FNV-1a over the bytes of a value. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

static size_t slot_of(const ac_search_cache *c, const ac_transient_fault *plan)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < c->nfaults; i++) {
        int attr = (int)plan[i].attr;
        h = mix(h, &plan[i].target, sizeof plan[i].target);
        h = mix(h, &attr, sizeof attr);
        h = mix(h, &plan[i].value, sizeof plan[i].value);
        h = mix(h, &plan[i].start, sizeof plan[i].start);
        h = mix(h, &plan[i].end, sizeof plan[i].end);
    }
    return (size_t)(h >> 11) & (CACHE_N - 1);
}

/* Bit-wise equality of two doubles (so -0 and 0 differ, NAN equals itself). */
static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_plan(const ac_search_cache *c, size_t k, const ac_transient_fault *plan)
{
    const ac_transient_fault *q = c->plans + k * c->nfaults;
    for (size_t i = 0; i < c->nfaults; i++)
        if (q[i].target != plan[i].target || q[i].attr != plan[i].attr ||
            !same_bits(q[i].value, plan[i].value) || !same_bits(q[i].start, plan[i].start) ||
            !same_bits(q[i].end, plan[i].end))
            return 0;
    return 1;
}

int ac_search_cache_get(const ac_search_cache *c, int kind, const ac_transient_fault *plan,
                        double *score, int *status)
{
    size_t k;
    if (c == NULL)
        return 0;
    k = slot_of(c, plan);
    if (c->e[k].epoch != c->epoch || !c->e[k].have[kind] || !same_plan(c, k, plan))
        return 0;
    *score = c->e[k].score[kind];
    *status = c->e[k].status[kind];
    return 1;
}

void ac_search_cache_put(ac_search_cache *c, int kind, const ac_transient_fault *plan, double score,
                         int status)
{
    size_t k;
    entry *e;
    if (c == NULL)
        return;
    k = slot_of(c, plan);
    e = &c->e[k];
    if (e->epoch != c->epoch || !same_plan(c, k, plan)) {
        memset(e, 0, sizeof *e);
        e->epoch = c->epoch;
        for (size_t i = 0; i < c->nfaults; i++) /* field by field: no padding copied */
            c->plans[k * c->nfaults + i] = (ac_transient_fault){
                plan[i].target, plan[i].attr, plan[i].value, plan[i].start, plan[i].end};
    }
    e->score[kind] = score;
    e->status[kind] = status;
    e->have[kind] = 1;
}
