/*
 * Shared declarations of capacity planning (internal to analysis/size*.c): the sizer's state
 * and probe records, the probes, bisection and settling of one row (analysis/size.c), and
 * the end-to-end split among the rows that bind an end-to-end requirement
 * (analysis/size_split.c).
 */
#ifndef AC_ANALYSIS_SIZE_INTERNAL_H
#define AC_ANALYSIS_SIZE_INTERNAL_H

#include <stddef.h>

#include "analysis/internal.h"
#include "archcheck/size.h"

/* The undecided outcomes remembered at the generous count. */
#define AC_SIZE_BG_MAX 32

/* Probe outcomes (besides 1 hold, 0 fail, -1 uncomputed). */
#define AC_SIZE_PROBE_BUDGET (-2)
#define AC_SIZE_PROBE_ERROR  (-3)

/* An outcome undecided by its stated error in one probe (the judgement's record). */
typedef struct size_undecided {
    const ac_requirement *req;
    size_t node;
    char what[64]; /* as the note quotes it: "latency p95 at 'db'" */
} size_undecided;

/* What one probe of node `node` at `count` (workload factor `scale`) gave, kept so that the
 * settling step judges it again (against the outcomes undecided at a generous count) without
 * solving the network a second time: the probe's outcome, whether an outcome failed beyond
 * its stated error, and the undecided ones in the order the requirements emit them. */
typedef struct size_record {
    int valid; /* 0: none, or more undecided outcomes than kept (probe again) */
    size_t node, count;
    double scale;
    int held, fail_sure;
    size_t nund;
    size_undecided und[AC_SIZE_BG_MAX];
} size_record;

typedef struct sizer {
    ac_model *w; /* the working clone: counts mutated */
    const ac_size_options *opt;
    ac_analysis_options probe;
    ac_analysis scratch;
    size_t probes, sims;
    ac_error *err;
    int rc;
    /* the outcomes undecided at a generous count of the node being settled: they do not
       depend on its count, so they do not make its count uncertain (the answer says it
       assumes them) */
    const ac_requirement *bg_req[AC_SIZE_BG_MAX];
    size_t bg_node[AC_SIZE_BG_MAX];
    size_t nbg;
    int bg_collect, bg_ignored;
    char bg_what[64];
    /* the bisection's records at its two ends (the answer n and n - 1) */
    size_record rec[2];
    size_record *recording; /* where the judgement records, or NULL */
    /* the probe at the load with every count as designed, made first to find the nodes that
       carry load: the sizing's feasible start at the load takes it from here instead of
       solving the same network again (first_valid 0: none, or taken) */
    int first_valid, first_held;
    size_t first_node;
    char first_binding[64];
} sizer;

/* Set the count a node's sizing varies (size.c): servers (an autoscaled pool: its maximum;
 * its min and servers clipped to it), concurrency (provisioned and pre-warmed clipped to it),
 * max-consumers. */
void ac_an_size_count_set(ac_node *nd, size_t c);

/* The least count the model allows: power-of-d samples d distinct servers. */
size_t ac_an_size_count_min(const ac_node *nd);

/* The answer a row gives at the load (headroom 0) or at the headroom's factor (1). */
ac_size_answer *ac_an_size_answer(ac_size_node *row, int headroom);

/* Solve the working model at `scale` and judge it as the headroom's probes do: 1 hold,
 * 0 fail (binding, node set), -1 a requirement has no value, AC_SIZE_PROBE_BUDGET,
 * AC_SIZE_PROBE_ERROR (s->rc set). */
int ac_an_size_probe(sizer *s, double scale, char *binding, size_t size, size_t *node);

/* The least count of row's node the probes hold at, bisected down from its current one
 * (galloping from `guess` when 0 < guess < current); the probes at the answer n and n - 1
 * kept in s->rec. Returns n, 0 when the budget ran out, (size_t)-1 on error (s->rc). */
size_t ac_an_size_bisect(sizer *s, ac_size_node *row, double scale, int headroom, size_t guess);

/* Settle the probes' answer n of node k (start: its count at the feasible start, cmin its
 * least) into *ans, by the full analysis with simulation where the stated errors leave it
 * open. Returns the count the following rows are sized with (>= n), or 0 on error (s->rc)
 * or when the budget ran out. */
size_t ac_an_size_settle(sizer *s, size_t k, size_t n, size_t start, size_t cmin, double scale,
                         ac_size_answer *ans);

/* The end-to-end split (size_split.c, doc/models.md §8): the greedy counts x[] of rows[]
 * (greedy[] a copy, start[] the feasible start, first_n the first row's bisection answer)
 * improved by pairwise exchanges among the rows that bind an end-to-end requirement, the
 * moved rows settled again; the greedy split and its answers stay when the probe budget runs
 * out. Returns 0 or a negative status (s->rc). */
int ac_an_size_split(sizer *s, ac_size_node *rows, size_t nrows, const size_t *start, size_t *x,
                     const size_t *greedy, size_t first_n, double scale, int headroom);

#endif
