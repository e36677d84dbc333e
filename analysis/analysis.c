/*
 * The analysis of an architecture: solve, combine, judge (see analysis.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "common/strbuf.h"

const char *ac_check_status_name(ac_check_status s)
{
    switch (s) {
    case AC_CHECK_PASS: return "pass";
    case AC_CHECK_FAIL: return "fail";
    case AC_CHECK_INCONCLUSIVE: return "inconclusive";
    }
    return "inconclusive";
}

void ac_analysis_options_init(ac_analysis_options *opt)
{
    memset(opt, 0, sizeof *opt);
    ac_solver_options_init(&opt->solver);
    opt->headroom = 1;
    opt->validate = AC_VALIDATE_AUTO;
    ac_sim_options_init(&opt->sim);
    opt->sim.rel_precision = 0.01;
    opt->sim.max_events = 50000000ull; /* about 10 s; the automatic horizon fits it */
    ac_transient_options_init(&opt->transient_opt);
    opt->search = 1;
    opt->search_jobs = 1;
    opt->search_budget = 200000;
}

void ac_an_finding(ac_an_ctx *c, const char *rule, ac_loc loc, const char *node, const char *fmt,
                   ...)
{
    va_list ap;
    char *msg;
    if (c->findings == NULL)
        return;
    va_start(ap, fmt);
    msg = ac_vstrdupf(fmt, ap);
    va_end(ap);
    if (msg == NULL || ac_diag_add(c->findings, rule, c->model->file, loc.line, loc.column, node,
                                   "%s", msg) != AC_OK)
        c->oom = 1;
    free(msg);
}

void ac_an_add_check(ac_an_ctx *c, const ac_check *check)
{
    ac_analysis *a = c->a;
    ac_check *grown = realloc(a->checks, (a->nchecks + 1) * sizeof *grown);
    if (grown == NULL) {
        c->oom = 1;
        return;
    }
    a->checks = grown;
    a->checks[a->nchecks++] = *check;
}

/* One stability check per analysed node (the JUnit and report rows). */
static void stability_checks(ac_an_ctx *c)
{
    const ac_model *m = c->model;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &c->a->nodes[i];
        ac_check ck;
        memset(&ck, 0, sizeof ck);
        snprintf(ck.name, sizeof ck.name, "stability of '%s'", m->nodes[i].id);
        ck.node = i;
        ck.loc = m->nodes[i].loc;
        if (!na->analysed) {
            ck.status = AC_CHECK_INCONCLUSIVE;
            snprintf(ck.rule, sizeof ck.rule, "AC900");
        } else if (na->overload) {
            ck.status = AC_CHECK_FAIL;
            snprintf(ck.rule, sizeof ck.rule, "AC101");
        } else if (na->pool != NULL && na->pool->bistable) {
            ck.status = AC_CHECK_FAIL;
            snprintf(ck.rule, sizeof ck.rule, "AC103");
        } else if (na->pool != NULL && na->pool->nequilibria > 0 &&
                   !na->pool->equilibria[na->pool->operating].stable) {
            ck.status = AC_CHECK_FAIL;
            snprintf(ck.rule, sizeof ck.rule, "AC102");
        } else {
            ck.status = AC_CHECK_PASS;
        }
        if (na->analysed && m->nodes[i].kind == AC_NODE_POOL) {
            ck.has_value = 1;
            ck.value = na->overload ? INFINITY : na->utilization;
            ck.limit = 1.0;
            ck.upper = 1;
        }
        ac_an_add_check(c, &ck);
    }
}

/* Mark each check whose finding was suppressed. */
static void mark_suppressed_checks(const ac_model *m, ac_analysis *a, const ac_diag_list *findings,
                                   size_t first)
{
    for (size_t k = 0; k < a->nchecks; k++) {
        ac_check *ck = &a->checks[k];
        const char *node = ck->node != AC_NONE ? m->nodes[ck->node].id : NULL;
        if (ck->status == AC_CHECK_PASS)
            continue;
        for (size_t i = first; i < findings->count; i++) {
            const ac_diag *d = &findings->items[i];
            if (d->suppressed && strcmp(d->rule, ck->rule) == 0 && d->line == ck->loc.line &&
                d->column == ck->loc.column &&
                ((node == NULL && d->node == NULL) ||
                 (node != NULL && d->node != NULL && strcmp(node, d->node) == 0)))
                ck->suppressed = 1;
        }
    }
}

int ac_analysis_run(const ac_model *m, const ac_analysis_options *opt, ac_analysis **out,
                    ac_diag_list *findings, ac_error *err)
{
    ac_analysis_options defaults;
    ac_analysis *a = NULL;
    ac_an_ctx c;
    size_t first = findings->count;
    int rc;

    *out = NULL;
    if (opt == NULL) {
        ac_analysis_options_init(&defaults);
        opt = &defaults;
    }
    a = calloc(1, sizeof *a);
    if (a == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (analysis)");
    a->model = m;
    a->scale = 1.0;
    a->nnodes = m->nnodes;
    a->headroom_node = AC_NONE;
    a->nodes = calloc(m->nnodes > 0 ? m->nnodes : 1, sizeof *a->nodes);
    if (a->nodes == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (analysis)");
        goto fail;
    }
    rc = ac_an_network_solve(m, opt, 1.0, a, err);
    if (rc == AC_EINPUT) {
        ac_an_report_cycle(m, findings);
        goto fail;
    }
    if (rc != AC_OK)
        goto fail;
    rc = ac_an_qna_apply(m, a, err);
    if (rc != AC_OK)
        goto fail;
    memset(&c, 0, sizeof c);
    c.model = m;
    c.opt = opt;
    c.a = a;
    c.findings = findings;
    rc = ac_an_closed_solve(m, a, findings, err);
    if (rc != AC_OK)
        goto fail;
    rc = ac_an_e2e_solve(m, a, err);
    if (rc != AC_OK)
        goto fail;
    rc = ac_an_transient_solve(m, opt, a, err);
    if (rc != AC_OK)
        goto fail;
    if (opt->headroom) {
        rc = ac_an_headroom(m, opt, a, err);
        if (rc != AC_OK)
            goto fail;
    }
    if (opt->validate == AC_VALIDATE_ALWAYS ||
        (opt->validate == AC_VALIDATE_AUTO && ac_an_requirements_straddle(&c))) {
        rc = ac_an_simulate(m, opt, a, err);
        if (rc != AC_OK)
            goto fail;
    }
    if (opt->validate != AC_VALIDATE_NEVER) {
        rc = ac_an_check_basins(m, opt, a, err);
        if (rc != AC_OK)
            goto fail;
    }
    ac_an_check_stability(&c);
    stability_checks(&c);
    ac_an_check_requirements(&c);
    if (c.oom) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory (analysis)");
        goto fail;
    }
    ac_an_apply_suppressions(m, findings, first);
    mark_suppressed_checks(m, a, findings, first);
    *out = a;
    return AC_OK;
fail:
    ac_analysis_free(a);
    if (rc == AC_EINPUT && findings->count == first)
        rc = AC_ENUMERIC; /* invalid input is said by a finding; without one it is ours */
    if (err != NULL && err->code == 0)
        ac_error_set(err, rc, "the analysis failed (%s)", ac_status_str(rc));
    return rc;
}

void ac_analysis_free(ac_analysis *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; a->nodes != NULL && i < a->nnodes; i++)
        ac_an_node_clear(&a->nodes[i]);
    free(a->nodes);
    ac_an_e2e_clear(&a->e2e);
    free(a->checks);
    ac_sim_result_free(a->sim);
    ac_transient_free(a->transient);
    free(a);
}
