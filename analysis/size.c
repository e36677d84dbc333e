/*
 * Capacity planning (include/archcheck/size.h): the smallest server count, concurrency or
 * consumer count per node meeting every load-sensitive requirement, by bisection on the
 * integer count with the analysis' own probes (network solve, end-to-end lattice, the
 * requirements' predicate of the headroom search), confirmed by the full analysis with its
 * validating simulation where the answer is within the stated error of a limit.
 *
 * Monotonicity: more servers (concurrency, consumers) never raise a node's wait, loss or
 * utilisation; the bisection relies on it, as the headroom's does on the load.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/size_internal.h"

/* How far the uncertain range is scanned on either side of the answer (probes). */
#define AC_SIZE_SCAN_MAX 16

const char *ac_size_status_name(ac_size_status s)
{
    switch (s) {
    case AC_SIZE_OK: return "ok";
    case AC_SIZE_UNCERTAIN: return "uncertain";
    case AC_SIZE_UNATTAINABLE: return "unattainable";
    case AC_SIZE_UNCOMPUTED: return "uncomputed";
    case AC_SIZE_BUDGET: return "budget";
    }
    return "uncomputed";
}

void ac_size_options_init(ac_size_options *opt)
{
    memset(opt, 0, sizeof *opt);
    ac_analysis_options_init(&opt->analysis);
    opt->max_probes = 4000;
    opt->max_simulations = 8;
    opt->max_count = (size_t)1 << 20;
}

/* The count a node's sizing varies: servers (an autoscaled pool: its maximum), concurrency,
 * max-consumers. */
static size_t count_get(const ac_node *nd)
{
    switch (nd->kind) {
    case AC_NODE_POOL:
        return nd->u.pool.has_autoscale ? nd->u.pool.autoscale.max : nd->u.pool.servers;
    case AC_NODE_FUNCTION: return nd->u.function.concurrency;
    case AC_NODE_QUEUE: return nd->u.queue.max_consumers;
    case AC_NODE_GATEWAY: return 0;
    }
    return 0;
}

void ac_an_size_count_set(ac_node *nd, size_t c)
{
    switch (nd->kind) {
    case AC_NODE_POOL:
        if (nd->u.pool.has_autoscale) {
            ac_autoscale *as = &nd->u.pool.autoscale;
            as->max = c;
            if (as->min > c)
                as->min = c;
            if (nd->u.pool.servers > c)
                nd->u.pool.servers = c;
        } else {
            nd->u.pool.servers = c;
        }
        break;
    case AC_NODE_FUNCTION:
        nd->u.function.concurrency = c;
        if (nd->u.function.provisioned > c)
            nd->u.function.provisioned = c;
        if (nd->u.function.prewarm > c)
            nd->u.function.prewarm = c;
        break;
    case AC_NODE_QUEUE: nd->u.queue.max_consumers = c; break;
    case AC_NODE_GATEWAY: break;
    }
}

/* The least count the model allows: power-of-d samples d distinct servers. */
size_t ac_an_size_count_min(const ac_node *nd)
{
    if (nd->kind == AC_NODE_POOL && nd->u.pool.dispatch == AC_DISPATCH_POWER_OF_D &&
        nd->u.pool.sampling == AC_SAMPLING_DISTINCT)
        return nd->u.pool.d;
    return 1;
}

/* Solve the working model at `scale` into the scratch analysis and judge it as the headroom's
 * probes do: 1 hold, 0 fail (binding set), -1 a requirement has no value, AC_SIZE_PROBE_BUDGET,
 * AC_SIZE_PROBE_ERROR (s->rc set). */
int ac_an_size_probe(sizer *s, double scale, char *binding, size_t size, size_t *node)
{
    const ac_model *m = s->w;
    int rc;
    if (s->probes >= s->opt->max_probes)
        return AC_SIZE_PROBE_BUDGET;
    s->probes++;
    rc = ac_an_probe_solve(m, &s->probe, scale, &s->scratch, node, s->err);
    if (rc != AC_OK) {
        s->rc = rc;
        return AC_SIZE_PROBE_ERROR;
    }
    if (*node != AC_NONE) {
        snprintf(binding, size, "stability");
        return 0;
    }
    return ac_an_requirements_hold(m, &s->scratch, binding, size, node);
}

/* The first probe: at the load with every count as designed, kept for the feasible start
 * (sizer.first_*). Returns what ac_an_size_probe returns. */
static int first_probe(sizer *s)
{
    s->first_node = AC_NONE;
    s->first_binding[0] = '\0';
    s->first_held =
        ac_an_size_probe(s, 1.0, s->first_binding, sizeof s->first_binding, &s->first_node);
    s->first_valid = s->first_held >= -1 || s->first_held == AC_SIZE_PROBE_BUDGET;
    return s->first_held;
}

/* The judgement of one probe, outcome by outcome (the requirement families' own outcomes,
 * with the straddle rule of requirements.c: a value within its stated relative error of its
 * limit cannot support a verdict). The ctx must stay the first member (emit_judge casts). */
typedef struct judge {
    ac_an_ctx c;
    sizer *s;
    int fail_sure; /* an outcome fails by more than its stated error */
    int unsure;    /* an outcome straddles its limit, or has no value */
    int ignored;   /* an undecided outcome that was undecided at the generous count too */
} judge;

/* An undecided outcome: remembered (collecting at the generous count), ignored (undecided
 * there too), or undecided. */
static void undecided_what(const sizer *s, const ac_req_outcome *o, char *out, size_t size)
{
    if (o->node != AC_NONE && o->node < s->w->nnodes)
        snprintf(out, size, "%.30s at '%.24s'", o->what, s->w->nodes[o->node].id);
    else
        snprintf(out, size, "%.40s end to end", o->what);
}

/* An undecided outcome r at `node` (what: as quoted) against the outcomes undecided at the
 * generous count: 1 it is one of them (ignored; the first one ignored is quoted), 0 not. */
static int bg_match(sizer *s, const ac_requirement *r, size_t node, const char *what)
{
    for (size_t i = 0; i < s->nbg; i++)
        if (s->bg_req[i] == r && s->bg_node[i] == node) {
            if (!s->bg_ignored) {
                s->bg_ignored = 1;
                snprintf(s->bg_what, sizeof s->bg_what, "%s", what);
            }
            return 1;
        }
    return 0;
}

static void judge_undecided(judge *j, const ac_requirement *r, const ac_req_outcome *o)
{
    sizer *s = j->s;
    size_record *rec = s->recording;
    if (rec != NULL) { /* the bisection: kept, judged when the answer is settled */
        if (rec->nund < AC_SIZE_BG_MAX) {
            rec->und[rec->nund].req = r;
            rec->und[rec->nund].node = o->node;
            undecided_what(s, o, rec->und[rec->nund].what, sizeof rec->und[rec->nund].what);
            rec->nund++;
        } else {
            rec->valid = 0;
        }
        return;
    }
    if (s->bg_collect) {
        if (s->nbg < AC_SIZE_BG_MAX) {
            s->bg_req[s->nbg] = r;
            s->bg_node[s->nbg++] = o->node;
        }
        j->unsure = 1;
        return;
    }
    {
        char what[64];
        undecided_what(s, o, what, sizeof what);
        if (bg_match(s, r, o->node, what)) {
            j->ignored = 1;
            return;
        }
    }
    j->unsure = 1;
}

static void emit_judge(ac_an_ctx *c, const ac_requirement *r, const ac_req_outcome *o)
{
    judge *j = (judge *)(void *)c;
    double margin;
    if (!o->evaluated || isnan(o->value)) {
        if (o->metric != AC_OUT_OTHER)
            judge_undecided(j, r, o);
        return;
    }
    if (isinf(o->value)) { /* unbounded: an overload */
        j->fail_sure |= o->value > o->limit;
        return;
    }
    margin = isnan(o->rel_error) ? INFINITY : o->rel_error * fabs(o->value);
    if (o->value - margin > o->limit)
        j->fail_sure = 1;
    else if (o->value + margin > o->limit)
        judge_undecided(j, r, o);
}

/* The outcomes of the scratch analysis into j (recorded instead of judged when s->recording
 * is set). */
static void judge_run(sizer *s, judge *j)
{
    const ac_model *m = s->w;
    memset(j, 0, sizeof *j);
    j->s = s;
    j->c.model = m;
    j->c.opt = &s->probe;
    j->c.a = &s->scratch;
    j->c.probe_node = AC_NONE;
    for (size_t i = 0; i < m->nrequirements; i++) {
        const ac_requirement *r = &m->requirements[i];
        switch (r->kind) {
        case AC_REQ_LATENCY: ac_req_latency(&j->c, r, emit_judge); break;
        case AC_REQ_UTILIZATION: ac_req_utilization(&j->c, r, emit_judge); break;
        case AC_REQ_LOSS: ac_req_loss(&j->c, r, emit_judge); break;
        default: break;
        }
    }
}

/* 1 every load-sensitive requirement and stability hold beyond the stated errors, 0 one
 * fails beyond them (or stability fails), -1 undecided by the stated errors. */
static int judge_result(const judge *j, int held)
{
    if (j->fail_sure)
        return 0;
    /* a failed probe whose only failing candidates are ignored outcomes is undecided too */
    if (j->unsure || (j->ignored && held != 1))
        return -1;
    /* no requirement fails: a failed probe failed on stability (exact: load >= 1, or the
       equilibria of the solver) */
    return held == 1 ? 1 : 0;
}

/* Judge the scratch analysis after a probe that returned `held` (judge_result). */
static int judge_now(sizer *s, int held)
{
    judge j;
    judge_run(s, &j);
    return judge_result(&j, held);
}

/* The judgement of a recorded probe, as judge_now gave it then against the outcomes
 * undecided at the generous count now (the same order, so the same one is quoted). */
static int judge_replay(sizer *s, const size_record *rec)
{
    judge j;
    memset(&j, 0, sizeof j);
    j.fail_sure = rec->fail_sure;
    for (size_t i = 0; i < rec->nund; i++) {
        if (bg_match(s, rec->und[i].req, rec->und[i].node, rec->und[i].what))
            j.ignored = 1;
        else
            j.unsure = 1;
    }
    return judge_result(&j, rec->held);
}

/* Record the probe just made (node k at c, `held`) into rec. */
static void record_probe(sizer *s, size_record *rec, size_t k, size_t c, double scale, int held)
{
    judge j;
    memset(rec, 0, sizeof *rec);
    rec->valid = 1;
    rec->node = k;
    rec->count = c;
    rec->scale = scale;
    rec->held = held;
    if (held >= -1) {
        s->recording = rec;
        judge_run(s, &j);
        s->recording = NULL;
        rec->fail_sure = j.fail_sure;
    } else {
        rec->valid = 0;
    }
}

/* Probe node k at count c and judge it (judge_now), or AC_SIZE_PROBE_BUDGET / AC_SIZE_PROBE_ERROR;
 * a probe the bisection recorded at (k, c, scale) is judged again without solving. */
static int judge_at(sizer *s, size_t k, size_t c, double scale)
{
    char b[64];
    size_t nd = AC_NONE;
    int held;
    ac_an_size_count_set(&s->w->nodes[k], c);
    for (size_t i = 0; i < 2; i++) {
        const size_record *rec = &s->rec[i];
        if (rec->valid && rec->node == k && rec->count == c && rec->scale == scale)
            return judge_replay(s, rec);
    }
    held = ac_an_size_probe(s, scale, b, sizeof b, &nd);
    if (held < -1)
        return held;
    return judge_now(s, held);
}

/* Multiply every source rate (and profile point) of `m` by `f`. */
static void scale_sources(ac_model *m, double f)
{
    for (size_t i = 0; i < m->nsources; i++)
        m->sources[i].rate *= f;
    for (size_t p = 0; p < m->nprofiles; p++)
        for (size_t j = 0; j < m->profiles[p].npoints; j++)
            m->profiles[p].points[j].rate *= f;
}

/* Is a check one of those sizing must meet (load-sensitive requirements and stability)? */
static int sizing_check(const ac_check *ck)
{
    static const char *const prefix[] = {"latency", "mean latency", "utilization", "loss",
                                         "stability"};
    for (size_t i = 0; i < sizeof prefix / sizeof prefix[0]; i++)
        if (strncmp(ck->name, prefix[i], strlen(prefix[i])) == 0)
            return 1;
    return 0;
}

/* The full analysis (with its validating simulation where a check straddles) of the working
 * model with node k at count c and the sources times `scale`: 1 every sizing check passes,
 * 0 one fails, -1 one is inconclusive, AC_SIZE_PROBE_BUDGET, AC_SIZE_PROBE_ERROR. */
static int confirm_at(sizer *s, size_t k, size_t c, double scale)
{
    ac_model *clone = NULL;
    ac_analysis *a = NULL;
    ac_diag_list d;
    ac_analysis_options o = s->opt->analysis;
    int rc, verdict = 1;

    if (s->sims >= s->opt->max_simulations)
        return AC_SIZE_PROBE_BUDGET;
    s->sims++;
    ac_an_size_count_set(&s->w->nodes[k], c);
    ac_diag_list_init(&d);
    rc = ac_model_clone(s->w, &clone, s->err);
    if (rc == AC_OK) {
        scale_sources(clone, scale);
        o.headroom = 0;
        o.transient = AC_TRANSIENT_NEVER;
        if (o.validate == AC_VALIDATE_NEVER)
            o.validate = AC_VALIDATE_AUTO;
        rc = ac_analysis_run(clone, &o, &a, &d, s->err);
    }
    if (rc != AC_OK) {
        s->rc = rc;
        verdict = AC_SIZE_PROBE_ERROR;
    } else {
        for (size_t i = 0; i < a->nchecks && verdict != 0; i++) {
            if (!sizing_check(&a->checks[i]))
                continue;
            if (a->checks[i].status == AC_CHECK_FAIL)
                verdict = 0;
            else if (a->checks[i].status == AC_CHECK_INCONCLUSIVE)
                verdict = -1;
        }
    }
    ac_analysis_free(a);
    ac_model_free(clone);
    ac_diag_list_clear(&d);
    return verdict;
}

/* The lowest count of the run of undecided counts from `from` downwards (at most
 * AC_SIZE_SCAN_MAX probes); from + 1 when `from` itself fails beyond the stated errors. */
static size_t scan_down(sizer *s, size_t k, size_t from, size_t cmin, double scale)
{
    size_t c = from + 1;
    for (size_t steps = 0; steps < AC_SIZE_SCAN_MAX && c > cmin; steps++) {
        if (judge_at(s, k, c - 1, scale) != -1)
            break;
        c--;
    }
    return c;
}

/* The first count from `from` upwards that holds beyond the stated errors, or AC_UNBOUNDED
 * when none does within AC_SIZE_SCAN_MAX probes (the undecided outcome may not depend on this
 * node's count at all: nothing bounds the range then). */
static size_t scan_up(sizer *s, size_t k, size_t from, double scale)
{
    size_t c = from;
    for (size_t steps = 0; steps < AC_SIZE_SCAN_MAX && c <= s->opt->max_count; steps++) {
        if (judge_at(s, k, c, scale) == 1)
            return c;
        c++;
    }
    return AC_UNBOUNDED;
}

/*
 * The probes' answer n (holds at n, fails at n - 1) is settled when n holds and n - 1 fails
 * beyond the stated errors. Otherwise the full analysis with simulation decides n - 1 and n
 * where it can; what it cannot leaves the range of counts the stated errors allow. Returns
 * the count the following nodes are sized with (>= n: the probes hold there), or 0 on error
 * (s->rc) or when the budget ran out.
 */
size_t ac_an_size_settle(sizer *s, size_t k, size_t n, size_t start, size_t cmin, double scale,
                         ac_size_answer *ans)
{
    size_t lo = n, hi = n, best = n, generous = 2 * n > start ? 2 * n : start;
    int jg, jn, jn1;

    /* what is undecided at a generous count does not depend on this count */
    s->nbg = 0;
    s->bg_collect = 1;
    jg = judge_at(s, k, generous, scale);
    s->bg_collect = 0;
    s->bg_ignored = 0;
    jn = judge_at(s, k, n, scale);
    jn1 = n > cmin ? judge_at(s, k, n - 1, scale) : 0;
    if (jg < -1 || jn < -1 || jn1 < -1) /* an error (s->rc) or the budget */
        return 0;
    if (jn1 == -1) {
        int v = confirm_at(s, k, n - 1, scale);
        if (v == AC_SIZE_PROBE_ERROR)
            return 0;
        if (v == 1) { /* the simulation passes n - 1: the answer is lower than the probes' */
            best = hi = n - 1;
            lo = n - 1 > cmin ? scan_down(s, k, n - 2, cmin, scale) : n - 1;
            ans->simulated = 1;
            jn = 1;
        } else if (v == 0) {
            ans->simulated = 1;
        } else {
            lo = scan_down(s, k, n - 1, cmin, scale);
        }
    }
    if (jn != 1) {
        int v = confirm_at(s, k, n, scale);
        if (v == AC_SIZE_PROBE_ERROR)
            return 0;
        if (v == 1) {
            ans->simulated = 1;
        } else if (v == 0) { /* the simulation fails n: more are needed */
            ans->simulated = 1;
            lo = n + 1;
            hi = scan_up(s, k, n + 1, scale);
            best = hi != AC_UNBOUNDED ? hi : n + 1;
        } else {
            hi = scan_up(s, k, n, scale);
        }
    }
    s->nbg = 0;
    s->rec[0].valid = s->rec[1].valid = 0;
    if (s->rc != AC_OK)
        return 0;
    if (s->bg_ignored)
        snprintf(ans->assumes, sizeof ans->assumes, "%s", s->bg_what);
    ans->needed = best;
    ans->needed_lo = lo < best ? lo : best;
    ans->needed_hi = hi > best ? hi : best; /* AC_UNBOUNDED: no count is sure */
    ans->status = ans->needed_lo == ans->needed_hi ? AC_SIZE_OK : AC_SIZE_UNCERTAIN;
    return best > n ? best : n;
}

ac_size_answer *ac_an_size_answer(ac_size_node *row, int headroom)
{
    return headroom ? &row->at_headroom : &row->at_load;
}

static void mark_all(ac_size_node *rows, size_t nrows, size_t from, int headroom, ac_size_status st,
                     const char *binding, size_t node)
{
    for (size_t j = from; j < nrows; j++) {
        ac_size_answer *ans = ac_an_size_answer(&rows[j], headroom);
        ans->status = st;
        ans->binding_node = node;
        snprintf(ans->binding, sizeof ans->binding, "%s", binding);
    }
}

/* A feasible start: every count doubled together until the probes hold. Returns 1 found,
 * 0 not (rows marked), AC_SIZE_PROBE_ERROR. */
static int feasible_start(sizer *s, ac_size_node *rows, size_t nrows, double scale, int headroom)
{
    char b[64] = "";
    size_t nd = AC_NONE;
    for (;;) {
        int held, can_grow = 0;
        if (s->first_valid && scale == 1.0) { /* the counts as designed, solved already */
            held = s->first_held;
            nd = s->first_node;
            snprintf(b, sizeof b, "%s", s->first_binding);
            s->first_valid = 0;
        } else {
            held = ac_an_size_probe(s, scale, b, sizeof b, &nd);
        }
        if (held == 1)
            return 1;
        if (held == AC_SIZE_PROBE_ERROR)
            return AC_SIZE_PROBE_ERROR;
        if (held == AC_SIZE_PROBE_BUDGET || held == -1) {
            mark_all(rows, nrows, 0, headroom, held == -1 ? AC_SIZE_UNCOMPUTED : AC_SIZE_BUDGET,
                     held == -1 ? "a requirement has no value" : "", AC_NONE);
            return 0;
        }
        for (size_t j = 0; j < nrows; j++) {
            ac_node *n = &s->w->nodes[rows[j].node];
            size_t c = count_get(n);
            if (c <= s->opt->max_count / 2) {
                ac_an_size_count_set(n, 2 * c);
                can_grow = 1;
            }
        }
        if (!can_grow) {
            mark_all(rows, nrows, 0, headroom, AC_SIZE_UNATTAINABLE, b, nd);
            return 0;
        }
    }
}

/* One probe of the bisection at `c`: 1 holds, 0 fails (binding into b, bn), -1 no value,
 * AC_SIZE_PROBE_BUDGET, AC_SIZE_PROBE_ERROR; recorded into *rec. */
static int bisect_probe(sizer *s, ac_node *nd, size_t k, size_t c, double scale, char *b,
                        size_t size, size_t *bn, size_record *rec)
{
    int held;
    ac_an_size_count_set(nd, c);
    held = ac_an_size_probe(s, scale, b, size, bn);
    if (held >= -1)
        record_probe(s, rec, k, c, scale, held);
    return held;
}

/*
 * Bisect row j's count down from its current (feasible) one: the least count n the probes
 * hold at (H(n), not H(n - 1); H monotone in the count). With a guess g (0: none), first a
 * galloping search from g (g, then g -+ 1, 3, 7, ... until the outcome changes) brackets n,
 * then the bisection closes the bracket: the same n in about 2 log2 |n - g| probes instead
 * of log2 of the count. The probes at n and n - 1 are kept (s->rec) for ac_an_size_settle().
 * Returns n, 0 when the budget ran out (row marked), or (size_t)-1 on error.
 */
size_t ac_an_size_bisect(sizer *s, ac_size_node *row, double scale, int headroom, size_t guess)
{
    ac_node *nd = &s->w->nodes[row->node];
    ac_size_answer *ans = ac_an_size_answer(row, headroom);
    size_t cmin = ac_an_size_count_min(nd), hi = count_get(nd), lo = cmin - 1, step = 0;
    char binding[64] = "nothing";
    size_t bnode = AC_NONE;
    int gallop = guess > lo && guess < hi, down = 0, first = 1;
    size_record tmp;

    s->rec[0].valid = s->rec[1].valid = 0;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        char b[64] = "";
        size_t bn = AC_NONE;
        int held;
        if (gallop) { /* g, then away from it in doubling steps while the outcome stays */
            if (first)
                mid = guess;
            else if (down)
                mid = guess > lo + step ? guess - step : lo + (hi - lo) / 2;
            else
                mid = guess + step < hi ? guess + step : lo + (hi - lo) / 2;
        }
        held = bisect_probe(s, nd, row->node, mid, scale, b, sizeof b, &bn, &tmp);
        if (held == AC_SIZE_PROBE_ERROR)
            return (size_t)-1;
        if (held == AC_SIZE_PROBE_BUDGET) {
            ac_an_size_count_set(nd, hi);
            return 0;
        }
        if (held == 1) {
            hi = mid;
            s->rec[0] = tmp;
        } else {
            /* a requirement without a value is not taken as met */
            lo = mid;
            s->rec[1] = tmp;
            bnode = bn;
            snprintf(binding, sizeof binding, "%s", held == 0 ? b : "a requirement has no value");
        }
        if (gallop) {
            if (first) {
                down = held == 1;
                first = 0;
            } else if ((held == 1) != down) {
                gallop = 0; /* bracketed: bisect within [lo, hi] */
            }
            if (gallop) {
                step = 2 * step + 1;
                if (step > hi - lo)
                    gallop = 0;
            }
        }
    }
    ac_an_size_count_set(nd, hi);
    snprintf(ans->binding, sizeof ans->binding, "%s", binding);
    ans->binding_node = bnode;
    return hi;
}

/* The bisection's guess for a row: at the headroom's workload factor the count found at the
 * load times the factor (a count scales about with the load it serves); none at the load. */
static size_t guess_of(const ac_size_node *row, double scale, int headroom)
{
    const ac_size_answer *l = &row->at_load;
    double g;
    if (!headroom || (l->status != AC_SIZE_OK && l->status != AC_SIZE_UNCERTAIN))
        return 0;
    g = ceil((double)l->needed * scale);
    return g < 1.0 || g > 1e15 ? 0 : (size_t)g;
}

/* Size rows[] at workload factor `scale` (the counts start as designed). Returns 0 or a
 * negative status. */
static int size_at(sizer *s, ac_size_node *rows, size_t nrows, double scale, int headroom)
{
    size_t *start = NULL, *x = NULL, *greedy = NULL, first_n = 0;
    int f, rc = AC_OK;
    for (size_t j = 0; j < nrows; j++)
        ac_an_size_count_set(&s->w->nodes[rows[j].node], rows[j].designed);
    f = feasible_start(s, rows, nrows, scale, headroom);
    if (f == AC_SIZE_PROBE_ERROR)
        return s->rc;
    if (f == 0)
        return AC_OK;
    start = calloc(nrows > 0 ? nrows : 1, sizeof *start);
    x = calloc(nrows > 0 ? nrows : 1, sizeof *x);
    greedy = calloc(nrows > 0 ? nrows : 1, sizeof *greedy);
    if (start == NULL || x == NULL || greedy == NULL) {
        rc = ac_error_set(s->err, AC_ENOMEM, "out of memory (size)");
        goto cleanup;
    }
    for (size_t j = 0; j < nrows; j++)
        start[j] = count_get(&s->w->nodes[rows[j].node]);
    for (size_t j = 0; j < nrows; j++) {
        ac_size_answer *ans = ac_an_size_answer(&rows[j], headroom);
        size_t n = ac_an_size_bisect(s, &rows[j], scale, headroom,
                                     guess_of(&rows[j], scale, headroom)),
               keep;
        if (n == (size_t)-1) {
            rc = s->rc;
            goto cleanup;
        }
        if (n == 0) {
            mark_all(rows, nrows, j, headroom, AC_SIZE_BUDGET, "", AC_NONE);
            goto cleanup;
        }
        keep = ac_an_size_settle(s, rows[j].node, n, start[j],
                                 ac_an_size_count_min(&s->w->nodes[rows[j].node]), scale, ans);
        if (keep == 0) {
            rc = s->rc;
            if (rc == AC_OK)
                mark_all(rows, nrows, j, headroom, AC_SIZE_BUDGET, "", AC_NONE);
            goto cleanup;
        }
        ac_an_size_count_set(&s->w->nodes[rows[j].node], keep);
        x[j] = keep;
        if (j == 0)
            first_n = n;
    }
    memcpy(greedy, x, nrows * sizeof *x);
    rc = ac_an_size_split(s, rows, nrows, start, x, greedy, first_n, scale, headroom);
cleanup:
    free(start);
    free(x);
    free(greedy);
    return rc;
}

static int sizer_init(sizer *s, const ac_model *m, const ac_size_options *opt, ac_error *err)
{
    memset(s, 0, sizeof *s);
    s->opt = opt;
    s->err = err;
    s->probe = opt->analysis;
    s->probe.solver.kpi_only = 1;
    s->probe.solver.burst_search = 0;
    s->rc = ac_model_clone(m, &s->w, err);
    if (s->rc != AC_OK)
        return s->rc;
    s->scratch.model = s->w;
    s->scratch.nnodes = m->nnodes;
    s->scratch.nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *s->scratch.nodes);
    if (s->scratch.nodes == NULL)
        return s->rc = ac_error_set(err, AC_ENOMEM, "out of memory (size)");
    return AC_OK;
}

static void sizer_free(sizer *s)
{
    for (size_t i = 0; i < s->scratch.nnodes && s->scratch.nodes != NULL; i++)
        ac_an_node_clear(&s->scratch.nodes[i]);
    free(s->scratch.nodes);
    ac_an_e2e_clear(&s->scratch.e2e);
    ac_model_free(s->w);
}

static void row_init(ac_size_node *row, const ac_node *nd, size_t i)
{
    memset(row, 0, sizeof *row);
    row->node = i;
    row->designed = count_get(nd);
    row->at_load.binding_node = row->at_headroom.binding_node = AC_NONE;
    switch (nd->kind) {
    case AC_NODE_POOL:
        row->kind = "pool";
        row->what = nd->u.pool.has_autoscale ? "max servers" : "servers";
        break;
    case AC_NODE_FUNCTION:
        row->kind = "function";
        row->what = "concurrency";
        break;
    default:
        row->kind = "queue";
        row->what = "max-consumers";
        break;
    }
}

/* The required headroom: the largest <headroom min> (1 without one). */
static double required_headroom(const ac_model *m)
{
    double f = 1.0;
    for (size_t i = 0; i < m->nrequirements; i++)
        if (m->requirements[i].kind == AC_REQ_HEADROOM && m->requirements[i].min > f)
            f = m->requirements[i].min;
    return f;
}

/* Size `rows` at the load and at the headroom factor (at the load only: load_only). */
static int size_rows(sizer *s, ac_size_node *rows, size_t nrows, double factor)
{
    int rc = size_at(s, rows, nrows, 1.0, 0);
    if (rc != AC_OK)
        return rc;
    if (s->opt->load_only) {
        mark_all(rows, nrows, 0, 1, AC_SIZE_UNCOMPUTED, "not sized (load only)", AC_NONE);
        return AC_OK;
    }
    if (factor > 1.0)
        return size_at(s, rows, nrows, factor, 1);
    for (size_t j = 0; j < nrows; j++)
        rows[j].at_headroom = rows[j].at_load;
    return AC_OK;
}

int ac_size_run(const ac_model *m, const ac_size_options *opt_in, ac_sizing **out, ac_error *err)
{
    ac_size_options defaults;
    const ac_size_options *opt = opt_in;
    ac_sizing *z;
    sizer s;
    int rc;

    if (opt == NULL) {
        ac_size_options_init(&defaults);
        opt = &defaults;
    }
    *out = NULL;
    z = calloc(1, sizeof *z);
    if (z == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (size)");
    z->headroom_factor = required_headroom(m);
    if (m->npopulations > 0 || m->nsources == 0) {
        snprintf(z->note, sizeof z->note, "%s",
                 m->nsources == 0 ? "no open workload: nothing to size"
                                  : "closed workloads (<population>) are not sized");
        *out = z;
        return AC_OK;
    }
    rc = sizer_init(&s, m, opt, err);
    if (rc == AC_OK && first_probe(&s) == AC_SIZE_PROBE_ERROR)
        rc = s.rc;
    if (rc == AC_OK) {
        z->nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *z->nodes);
        if (z->nodes == NULL)
            rc = ac_error_set(err, AC_ENOMEM, "out of memory (size)");
    }
    for (size_t i = 0; rc == AC_OK && i < m->nnodes; i++) {
        const ac_node *n = &m->nodes[i];
        if (n->kind == AC_NODE_GATEWAY || !(s.scratch.nodes[i].arrival_rate > 0.0))
            continue;
        row_init(&z->nodes[z->nnodes++], n, i);
    }
    if (rc == AC_OK)
        rc = size_rows(&s, z->nodes, z->nnodes, z->headroom_factor);
    if (rc == AC_OK) {
        z->complete = 1;
        for (size_t j = 0; j < z->nnodes; j++) {
            const ac_size_answer *h = &z->nodes[j].at_headroom;
            if (h->status == AC_SIZE_OK ||
                (h->status == AC_SIZE_UNCERTAIN && h->needed_hi != AC_UNBOUNDED))
                z->saved += (long long)z->nodes[j].designed - (long long)h->needed_hi;
            if (h->status != AC_SIZE_OK || z->nodes[j].at_load.status != AC_SIZE_OK)
                z->complete = 0;
        }
        z->probes = s.probes;
        z->simulations = s.sims;
    }
    sizer_free(&s);
    if (rc != AC_OK) {
        ac_sizing_free(z);
        return rc;
    }
    *out = z;
    return AC_OK;
}

void ac_sizing_free(ac_sizing *z)
{
    if (z == NULL)
        return;
    free(z->nodes);
    free(z);
}

/* ---- dispatch comparison ---- */

static const struct {
    const char *name;
    ac_dispatch dispatch;
    size_t d;
    ac_sampling sampling;
} dispatchers[] = {
    {"random", AC_DISPATCH_RANDOM, 2, AC_SAMPLING_DISTINCT},
    {"power-of-2 (distinct)", AC_DISPATCH_POWER_OF_D, 2, AC_SAMPLING_DISTINCT},
    {"power-of-2 (replace)", AC_DISPATCH_POWER_OF_D, 2, AC_SAMPLING_WITH_REPLACEMENT},
    {"power-of-3 (distinct)", AC_DISPATCH_POWER_OF_D, 3, AC_SAMPLING_DISTINCT},
    {"power-of-3 (replace)", AC_DISPATCH_POWER_OF_D, 3, AC_SAMPLING_WITH_REPLACEMENT},
    {"jsq", AC_DISPATCH_JSQ, 2, AC_SAMPLING_DISTINCT},
    {"jiq", AC_DISPATCH_JIQ, 2, AC_SAMPLING_DISTINCT},
    {"shared-queue", AC_DISPATCH_SHARED_QUEUE, 2, AC_SAMPLING_DISTINCT},
};

#define NDISPATCHERS (sizeof dispatchers / sizeof dispatchers[0])

/* One dispatcher: the pool's numbers at the design load, then its servers needed. */
static int dispatch_row(const ac_model *m, size_t k, const ac_size_options *opt, size_t v,
                        ac_dispatch_row *row, ac_error *err)
{
    sizer s;
    ac_size_node one;
    int rc = sizer_init(&s, m, opt, err);
    ac_pool *p;

    memset(row, 0, sizeof *row);
    snprintf(row->name, sizeof row->name, "%s", dispatchers[v].name);
    row->dispatch = dispatchers[v].dispatch;
    row->d = dispatchers[v].d;
    row->sampling = dispatchers[v].sampling;
    row->mean = row->p95 = row->p99 = NAN;
    row->approximation = "none";
    if (rc != AC_OK)
        goto cleanup;
    p = &s.w->nodes[k].u.pool;
    p->dispatch = row->dispatch;
    p->d = row->d;
    p->sampling = row->sampling;
    if (p->dispatch == AC_DISPATCH_POWER_OF_D && p->sampling == AC_SAMPLING_DISTINCT &&
        p->servers < p->d) {
        snprintf(row->note, sizeof row->note, "fewer servers than d");
        goto cleanup;
    }
    if (first_probe(&s) == AC_SIZE_PROBE_ERROR) {
        rc = s.rc;
        goto cleanup;
    }
    {
        const ac_node_analysis *na = &s.scratch.nodes[k];
        row->analysed = na->analysed && !na->overload;
        if (row->analysed) {
            row->mean = na->mean_response_time;
            row->p95 = na->p95;
            row->p99 = na->p99;
            row->rel_error = fmax(na->expected_rel_error, na->percentile_rel_error);
            row->approximation = ac_node_analysis_approximation(na);
        } else {
            snprintf(row->note, sizeof row->note, "%s",
                     na->overload ? "overloaded" : (na->why[0] ? na->why : "not analysed"));
        }
    }
    row_init(&one, &s.w->nodes[k], k);
    rc = size_at(&s, &one, 1, 1.0, 0);
    row->needed = one.at_load;
cleanup:
    sizer_free(&s);
    return rc;
}

int ac_size_dispatch_compare(const ac_model *m, size_t k, const ac_size_options *opt_in,
                             ac_dispatch_row **out, size_t *n, ac_error *err)
{
    ac_size_options defaults;
    const ac_size_options *opt = opt_in;
    ac_dispatch_row *rows;
    int rc = AC_OK;

    *out = NULL;
    *n = 0;
    if (k >= m->nnodes || m->nodes[k].kind != AC_NODE_POOL)
        return ac_error_set(err, AC_EINVAL, "--dispatch needs a pool");
    if (m->npopulations > 0 || m->nsources == 0)
        return ac_error_set(err, AC_EINVAL, "--dispatch needs an open workload (<source>)");
    if (opt == NULL) {
        ac_size_options_init(&defaults);
        opt = &defaults;
    }
    rows = calloc(NDISPATCHERS, sizeof *rows);
    if (rows == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (size)");
    for (size_t v = 0; v < NDISPATCHERS && rc == AC_OK; v++)
        rc = dispatch_row(m, k, opt, v, &rows[v], err);
    if (rc != AC_OK) {
        free(rows);
        return rc;
    }
    *out = rows;
    *n = NDISPATCHERS;
    return AC_OK;
}
