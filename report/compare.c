/*
 * `archcheck compare`: the table of checks and KPIs across variants (baseline, mitigations,
 * or two files), and its text and JSON forms. The PDF form is report/pdf_compare.c.
 *
 * "Best" is decided on the numbers alone: lower is better for latencies, utilisation and
 * loss (and for checks with an upper limit), higher for headroom (and checks with a lower
 * limit). Values within 0.01% of each other are ties (far below any approximation's stated
 * error, and invisible at the 4 significant digits printed). Where a row's values differ,
 * every variant with the best value is marked (cell.best, `*`); the row's `best` names a
 * variant only when it alone has the best value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/report.h"
#include "common/jsonw.h"
#include "report/internal.h"

#define TIE_REL 1e-4

void ac_report_compare_table_free(ac_compare_table *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nrows; i++)
        free(t->rows[i].cells);
    free(t->rows);
    free(t);
}

/* The table under construction; `occ` is each check row's occurrence index of its name (two
 * requirements may give two checks of one name). */
typedef struct builder {
    ac_compare_table *t;
    size_t cap;
    size_t *occ;
    int oom;
} builder;

/* Append an empty row; returns it, or NULL on allocation failure. */
static ac_compare_row *add_row(builder *b, const char *name, const char *metric, int is_check,
                               const char *node, const char *unit, ac_compare_better better,
                               size_t occ)
{
    ac_compare_row *r;
    if (b->oom)
        return NULL;
    if (b->t->nrows == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 32;
        ac_compare_row *rows = realloc(b->t->rows, cap * sizeof *rows);
        size_t *o;
        if (rows == NULL) {
            b->oom = 1;
            return NULL;
        }
        b->t->rows = rows;
        o = realloc(b->occ, cap * sizeof *o);
        if (o == NULL) {
            b->oom = 1;
            return NULL;
        }
        b->occ = o;
        b->cap = cap;
    }
    r = &b->t->rows[b->t->nrows];
    memset(r, 0, sizeof *r);
    r->cells = calloc(b->t->nvariants > 0 ? b->t->nvariants : 1, sizeof *r->cells);
    if (r->cells == NULL) {
        b->oom = 1;
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->metric, sizeof r->metric, "%s", metric);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->is_check = is_check;
    r->node = node;
    r->better = better;
    r->best = AC_NONE;
    b->occ[b->t->nrows] = occ;
    b->t->nrows++;
    return r;
}

static void add_checks(builder *b, const ac_compare_run *run)
{
    for (size_t v = 0; v < run->nvariants && !b->oom; v++) {
        const ac_analysis *a = run->variants[v].analysis;
        const ac_model *m = run->variants[v].model;
        if (a == NULL || m == NULL)
            continue;
        for (size_t k = 0; k < a->nchecks && !b->oom; k++) {
            const ac_check *c = &a->checks[k];
            ac_compare_row *row = NULL;
            size_t occ = 0;
            for (size_t j = 0; j < k; j++)
                occ += strcmp(a->checks[j].name, c->name) == 0;
            for (size_t r = 0; r < b->t->nrows; r++)
                if (b->t->rows[r].is_check && b->occ[r] == occ &&
                    strcmp(b->t->rows[r].name, c->name) == 0) {
                    row = &b->t->rows[r];
                    break;
                }
            if (row == NULL)
                row =
                    add_row(b, c->name, "check", 1,
                            c->node != AC_NONE && c->node < m->nnodes ? m->nodes[c->node].id : NULL,
                            c->unit, c->upper ? AC_COMPARE_LOWER : AC_COMPARE_HIGHER, occ);
            if (row == NULL)
                return;
            row->cells[v].has_status = 1;
            row->cells[v].status = c->status;
            if (c->has_value) {
                row->cells[v].present = 1;
                row->cells[v].value = c->value;
                row->cells[v].limit = c->limit;
            }
        }
    }
}

typedef enum kpi {
    KPI_UTIL = 0,
    KPI_MEAN,
    KPI_P95,
    KPI_LOSS,
    KPI_COLD_STARTS, /* functions, over the transient: what cold-start remedies change */
    KPI_PEAK_THROTTLE,
    KPI_COUNT
} kpi;

static int node_kpi(const ac_analysis *a, size_t j, kpi k, double *out)
{
    const ac_node_analysis *na = &a->nodes[j];
    const ac_transient *tr = a->transient;
    const ac_transient_node *tn = tr != NULL && j < tr->nnodes ? &tr->nodes[j] : NULL;
    if (!na->analysed)
        return 0;
    switch (k) {
    case KPI_UTIL: *out = na->overload ? INFINITY : na->utilization; break;
    case KPI_MEAN: *out = na->overload ? INFINITY : na->mean_response_time; break;
    case KPI_P95: *out = na->overload ? INFINITY : na->p95; break;
    case KPI_LOSS: *out = na->loss_probability; break;
    case KPI_COLD_STARTS:
        if (tn == NULL || tn->cum_cold_starts == NULL || tr->nsamples == 0)
            return 0;
        *out = tn->cum_cold_starts[tr->nsamples - 1];
        break;
    case KPI_PEAK_THROTTLE:
        if (tn == NULL || tn->throttle_rate == NULL || tr->nsamples == 0)
            return 0;
        *out = 0.0;
        for (size_t s = 0; s < tr->nsamples; s++)
            *out = fmax(*out, tn->throttle_rate[s]);
        break;
    case KPI_COUNT: return 0;
    }
    return !isnan(*out);
}

static void add_node_kpis(builder *b, const ac_compare_run *run)
{
    static const struct {
        const char *metric, *what, *unit;
    } kpis[KPI_COUNT] = {{"utilization", "utilization", ""},
                         {"mean_response_time", "mean response time", "s"},
                         {"p95_response_time", "response time p95", "s"},
                         {"loss_probability", "loss probability", ""},
                         {"cold_starts", "cold starts over the profile", ""},
                         {"peak_throttle_rate", "peak throttle rate over the profile", "/s"}};
    for (size_t v = 0; v < run->nvariants && !b->oom; v++) {
        const ac_model *m = run->variants[v].model;
        if (m == NULL || run->variants[v].analysis == NULL)
            continue;
        for (size_t i = 0; i < m->nnodes && !b->oom; i++) {
            const char *id = m->nodes[i].id;
            int seen = 0;
            /* a node already tabled by an earlier variant */
            for (size_t r = 0; r < b->t->nrows && !seen; r++)
                seen = !b->t->rows[r].is_check && b->t->rows[r].node != NULL &&
                       strcmp(b->t->rows[r].node, id) == 0;
            if (seen)
                continue;
            for (int k = 0; k < KPI_COUNT && !b->oom; k++) {
                char name[200];
                ac_compare_row *row;
                size_t present = 0;
                snprintf(name, sizeof name, "'%s' %s", id, kpis[k].what);
                row = add_row(b, name, kpis[k].metric, 0, id, kpis[k].unit, AC_COMPARE_LOWER, 0);
                if (row == NULL)
                    return;
                for (size_t w = 0; w < run->nvariants; w++) {
                    const ac_model *mw = run->variants[w].model;
                    const ac_analysis *aw = run->variants[w].analysis;
                    size_t j;
                    if (mw == NULL || aw == NULL)
                        continue;
                    j = ac_model_find_node(mw, id);
                    if (j == AC_NONE || j >= aw->nnodes)
                        continue;
                    if (node_kpi(aw, j, (kpi)k, &row->cells[w].value)) {
                        row->cells[w].present = 1;
                        present++;
                    }
                }
                if (present == 0) { /* nobody has it: drop the row */
                    free(row->cells);
                    b->t->nrows--;
                }
            }
        }
    }
}

/* A row of one value per variant: its metric, label, unit and which way is better. */
typedef struct value_row {
    const char *metric, *name, *unit;
    ac_compare_better better;
} value_row;

/* Row k's value for one variant, NAN where the variant has none. */
typedef double (*variant_value_fn)(const ac_compare_variant *v, size_t k);

/* Add rows[0..n), each with a cell for every variant that has a value; a row no variant
 * has is dropped. */
static void add_value_rows(builder *b, const ac_compare_run *run, const value_row *rows, size_t n,
                           variant_value_fn value)
{
    for (size_t k = 0; k < n && !b->oom; k++) {
        size_t present = 0;
        ac_compare_row *row =
            add_row(b, rows[k].name, rows[k].metric, 0, NULL, rows[k].unit, rows[k].better, 0);
        if (row == NULL)
            return;
        for (size_t v = 0; v < run->nvariants; v++) {
            double x = value(&run->variants[v], k);
            if (isnan(x))
                continue;
            row->cells[v].present = 1;
            row->cells[v].value = x;
            present++;
        }
        if (present == 0) {
            free(row->cells);
            b->t->nrows--;
        }
    }
}

/* The end-to-end mean, p95, p99 (k = 0, 1, 2; infinite when unbounded) and the headroom. */
static double global_kpi(const ac_compare_variant *v, size_t k)
{
    const ac_analysis *a = v->analysis;
    const ac_end_to_end *e;
    if (a == NULL)
        return NAN;
    e = &a->e2e;
    if (k < 3 && e->available) {
        if (e->unbounded)
            return INFINITY;
        if (k == 0)
            return e->mean_response_time;
        if (e->percentiles)
            return k == 1 ? e->p95 : e->p99;
    } else if (k == 3 && a->has_headroom) {
        return a->headroom;
    }
    return NAN;
}

static void add_global_kpis(builder *b, const ac_compare_run *run)
{
    static const value_row rows[] = {
        {"end_to_end_mean_response_time", "end to end mean response time", "s", AC_COMPARE_LOWER},
        {"end_to_end_p95_response_time", "end to end response time p95", "s", AC_COMPARE_LOWER},
        {"end_to_end_p99_response_time", "end to end response time p99", "s", AC_COMPARE_LOWER},
        {"headroom", "headroom factor", "", AC_COMPARE_HIGHER}};
    add_value_rows(b, run, rows, sizeof rows / sizeof rows[0], global_kpi);
}

/* The worst-case score, B_r and R_g of a variant's fault search (k = 0, 1, 2). */
static double search_value(const ac_compare_variant *v, size_t k)
{
    if (!v->has_search)
        return NAN;
    return k == 0 ? v->worst_score : (k == 1 ? v->resilience_boundary : v->resilience_gain);
}

/* The resilience study's rows (compare --search). */
static void add_search_rows(builder *b, const ac_compare_run *run)
{
    static const value_row rows[] = {
        {"worst_case_score", "worst-case score (fault search)", "", AC_COMPARE_LOWER},
        {"resilience_boundary", "resilience boundary B_r (fluid)", "/s", AC_COMPARE_HIGHER},
        {"resilience_gain", "resilience gain R_g", "", AC_COMPARE_HIGHER}};
    add_value_rows(b, run, rows, sizeof rows / sizeof rows[0], search_value);
}

/* The variant with the strictly best value of the row, or AC_NONE; marks every cell tied with
 * the best value (cell.best) unless all the row's values tie. */
static size_t find_best(ac_compare_row *r, size_t n)
{
    size_t best = AC_NONE, present = 0, ties = 0;
    for (size_t v = 0; v < n; v++) {
        const ac_compare_cell *c = &r->cells[v];
        if (!c->present || isnan(c->value))
            continue;
        present++;
        if (best == AC_NONE || (r->better == AC_COMPARE_LOWER ? c->value < r->cells[best].value
                                                              : c->value > r->cells[best].value))
            best = v;
    }
    if (present < 2 || best == AC_NONE)
        return AC_NONE;
    for (size_t v = 0; v < n; v++) {
        ac_compare_cell *c = &r->cells[v];
        double a = c->value, b = r->cells[best].value;
        if (!c->present || isnan(a))
            continue;
        c->best = a == b ||
                  (isfinite(a) && isfinite(b) && fabs(a - b) <= TIE_REL * fmax(fabs(a), fabs(b)));
        ties += (size_t)c->best;
    }
    if (ties == present)
        for (size_t v = 0; v < n; v++)
            r->cells[v].best = 0;
    return ties == 1 ? best : AC_NONE;
}

int ac_report_compare_table_new(const ac_compare_run *run, ac_compare_table **out, ac_error *err)
{
    builder b;
    int rc = AC_OK;
    memset(&b, 0, sizeof b);
    *out = NULL;
    b.t = calloc(1, sizeof *b.t);
    if (b.t == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory building the comparison");
        goto cleanup;
    }
    b.t->nvariants = run->nvariants;
    add_checks(&b, run);
    add_node_kpis(&b, run);
    add_global_kpis(&b, run);
    add_search_rows(&b, run);
    if (b.oom) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory building the comparison");
        goto cleanup;
    }
    for (size_t r = 0; r < b.t->nrows; r++)
        b.t->rows[r].best = find_best(&b.t->rows[r], run->nvariants);
    *out = b.t;
    b.t = NULL;
cleanup:
    ac_report_compare_table_free(b.t);
    free(b.occ);
    return rc;
}

/* ---------------------------------------------------------------- text */

const char *ac_report_check_status_label(ac_check_status s)
{
    switch (s) {
    case AC_CHECK_PASS: return "PASS";
    case AC_CHECK_FAIL: return "FAIL";
    case AC_CHECK_INCONCLUSIVE: return "INCONCLUSIVE";
    }
    return "?";
}

const char *ac_report_compare_verdict_label(const ac_compare_variant *v)
{
    if (v->analysis == NULL)
        return "NOT ANALYSED";
    switch (v->verdict) {
    case AC_VERDICT_PASS: return "PASS";
    case AC_VERDICT_FAIL: return "FAIL";
    case AC_VERDICT_INCONCLUSIVE: return "INCONCLUSIVE";
    case AC_VERDICT_INVALID: return "INVALID";
    }
    return "?";
}

/* A value with its unit for the text (ASCII) and the PDF (unicode): seconds as s, ms or µs. */
void ac_report_compare_value_format(char *buf, size_t n, double v, const char *unit, int unicode)
{
    if (isnan(v)) {
        snprintf(buf, n, "%s", unicode ? "\xE2\x80\x93" : "-");
    } else if (isinf(v)) {
        snprintf(buf, n, "%s",
                 v > 0     ? "unbounded"
                 : unicode ? "\xE2\x88\x92\xE2\x88\x9E"
                           : "-unbounded");
    } else if (strcmp(unit, "s") == 0) {
        double a = fabs(v);
        if (v == 0.0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-3)
            snprintf(buf, n, "%.4g %s", v * 1e6, unicode ? "\xC2\xB5s" : "us");
        else if (a < 1.0)
            snprintf(buf, n, "%.4g ms", v * 1e3);
        else
            snprintf(buf, n, "%.4g s", v);
    } else if (unit[0] != '\0') {
        snprintf(buf, n, "%.4g %s", v, unit);
    } else {
        snprintf(buf, n, "%.4g", v);
    }
}

/* The text of one cell ("0.27 PASS *", "-"). */
static void cell_text(char *buf, size_t n, const ac_compare_row *r, size_t v)
{
    const ac_compare_cell *c = &r->cells[v];
    char val[64];
    if (c->present)
        ac_report_compare_value_format(val, sizeof val, c->value, r->unit, 0);
    else
        snprintf(val, sizeof val, "-");
    if (c->has_status)
        snprintf(buf, n, "%s %s%s", val, ac_report_check_status_label(c->status),
                 c->best ? " *" : "");
    else
        snprintf(buf, n, "%s%s", val, c->best ? " *" : "");
}

static void pad(FILE *fp, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(' ', fp);
}

/* The simulated score of a variant's worst case beside its fluid one (the worst-case score
 * row's cell): simulation_value with its sibling _ci95 (output.md; as a check's), or why it was
 * not. */
static void json_worst_sim(ac_jsonw *w, const ac_compare_variant *x)
{
    if (!x->has_worst_sim)
        return;
    if (x->worst_sim_computed) {
        ac_jsonw_key(w, "simulation_value");
        ac_jsonw_double(w, x->worst_sim);
        ac_jsonw_key(w, "simulation_value_ci95");
        ac_jsonw_double(w, x->worst_sim_ci95);
        ac_jsonw_key(w, "simulation_level");
        ac_jsonw_double(w, x->worst_sim_level);
        ac_jsonw_key(w, "simulation_replications");
        ac_jsonw_uint(w, x->worst_sim_replications);
    } else {
        ac_jsonw_key(w, "simulation_why");
        ac_jsonw_string(w, x->worst_sim_why != NULL ? x->worst_sim_why : "not simulated");
    }
}

/* The same in words, under the table. */
static void text_worst_sim(FILE *fp, const ac_compare_run *run)
{
    for (size_t v = 0; v < run->nvariants; v++) {
        const ac_compare_variant *x = &run->variants[v];
        if (!x->has_worst_sim)
            continue;
        if (x->worst_sim_computed)
            fprintf(fp,
                    "worst-case score of %s in the simulator: %.4g +- %.2g (%.3g%%, %zu "
                    "replications; fluid %.4g)\n",
                    x->id, x->worst_sim, x->worst_sim_ci95, 100.0 * x->worst_sim_level,
                    x->worst_sim_replications, x->worst_score);
        else
            fprintf(fp, "worst-case score of %s: not simulated: %s\n", x->id,
                    x->worst_sim_why != NULL ? x->worst_sim_why : "not simulated");
    }
}

int ac_report_compare_text(FILE *fp, const ac_compare_run *run)
{
    ac_compare_table *t = NULL;
    size_t *width = NULL, first = strlen("verdict");
    char cell[128];
    int rc;

    rc = ac_report_compare_table_new(run, &t, NULL);
    if (rc != AC_OK)
        goto cleanup;
    width = calloc(run->nvariants > 0 ? run->nvariants : 1, sizeof *width);
    if (width == NULL) {
        rc = AC_ENOMEM;
        goto cleanup;
    }
    for (size_t r = 0; r < t->nrows; r++)
        first = strlen(t->rows[r].name) > first ? strlen(t->rows[r].name) : first;
    for (size_t v = 0; v < run->nvariants; v++) {
        width[v] = strlen(run->variants[v].id);
        if (strlen(ac_report_compare_verdict_label(&run->variants[v])) > width[v])
            width[v] = strlen(ac_report_compare_verdict_label(&run->variants[v]));
        for (size_t r = 0; r < t->nrows; r++) {
            cell_text(cell, sizeof cell, &t->rows[r], v);
            width[v] = strlen(cell) > width[v] ? strlen(cell) : width[v];
        }
    }
    if (run->nfiles == 2)
        fprintf(fp, "archcheck compare: %s and %s\n\n", run->files[0], run->files[1]);
    else
        fprintf(fp, "archcheck compare: %s (baseline and %zu mitigation%s)\n\n", run->files[0],
                run->nvariants > 0 ? run->nvariants - 1 : 0, run->nvariants == 2 ? "" : "s");
    pad(fp, first);
    for (size_t v = 0; v < run->nvariants; v++) {
        fprintf(fp, "  %s", run->variants[v].id);
        pad(fp, width[v] - strlen(run->variants[v].id));
    }
    fputc('\n', fp);
    fputs("verdict", fp);
    pad(fp, first - strlen("verdict"));
    for (size_t v = 0; v < run->nvariants; v++) {
        const char *w = ac_report_compare_verdict_label(&run->variants[v]);
        fprintf(fp, "  %s", w);
        pad(fp, width[v] - strlen(w));
    }
    fputc('\n', fp);
    for (size_t r = 0; r < t->nrows; r++) {
        if (r > 0 && t->rows[r - 1].is_check && !t->rows[r].is_check)
            fputc('\n', fp); /* the checks, then the KPIs */
        fputs(t->rows[r].name, fp);
        pad(fp, first - strlen(t->rows[r].name));
        for (size_t v = 0; v < run->nvariants; v++) {
            cell_text(cell, sizeof cell, &t->rows[r], v);
            fprintf(fp, "  %s", cell);
            pad(fp, width[v] - strlen(cell));
        }
        fputc('\n', fp);
    }
    fputs("\n* the best value of the row (lower is better, except headroom, resilience boundary "
          "and gain, and minimum requirements)\n",
          fp);
    for (size_t r = 0; r < t->nrows; r++)
        if (strcmp(t->rows[r].metric, "resilience_boundary") == 0)
            fputs("B_r: the fluid model's, without the fluctuations, with no stated error (the "
                  "simulator is not run on it; `archcheck search` confirms the baseline's worst "
                  "case)\n",
                  fp);
    text_worst_sim(fp, run);
    for (size_t v = 0; v < run->nvariants; v++) {
        const ac_compare_variant *x = &run->variants[v];
        if (x->changes != NULL && x->changes[0] != '\0')
            fprintf(fp, "%s (%s): %s\n", x->id, x->kind, x->changes);
        if (x->error != NULL && x->error[0] != '\0')
            fprintf(fp, "%s (%s): not analysed: %s\n", x->id, x->kind, x->error);
    }
    if (run->note != NULL)
        fprintf(fp, "note: %s\n", run->note);
    rc = ferror(fp) ? AC_EIO : AC_OK;
cleanup:
    free(width);
    ac_report_compare_table_free(t);
    return rc;
}

/* ---------------------------------------------------------------- JSON */

static const char *verdict_key(const ac_compare_variant *v)
{
    return v->analysis == NULL ? "inconclusive" : ac_verdict_name(v->verdict);
}

int ac_report_compare_json(FILE *fp, const ac_compare_run *run)
{
    ac_compare_table *t = NULL;
    ac_jsonw w;
    int rc = ac_report_compare_table_new(run, &t, NULL);
    if (rc != AC_OK)
        return rc;
    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "archcheck");
    ac_jsonw_string(&w, AC_VERSION);
    ac_jsonw_key(&w, "command");
    ac_jsonw_string(&w, "compare");
    ac_jsonw_key(&w, "files");
    ac_jsonw_array_begin(&w);
    for (size_t f = 0; f < run->nfiles && f < 2; f++) {
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "file");
        ac_jsonw_string(&w, run->files[f]);
        ac_jsonw_key(&w, "sha256");
        ac_jsonw_string(&w, run->sha256[f] != NULL ? run->sha256[f] : "");
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_key(&w, "seed");
    ac_jsonw_uint(&w, run->seed);
    if (run->note != NULL) {
        ac_jsonw_key(&w, "note");
        ac_jsonw_string(&w, run->note);
    }
    ac_jsonw_key(&w, "variants");
    ac_jsonw_array_begin(&w);
    for (size_t v = 0; v < run->nvariants; v++) {
        const ac_compare_variant *x = &run->variants[v];
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "id");
        ac_jsonw_string(&w, x->id);
        ac_jsonw_key(&w, "kind");
        ac_jsonw_string(&w, x->kind);
        if (x->label != NULL) {
            ac_jsonw_key(&w, "label");
            ac_jsonw_string(&w, x->label);
        }
        ac_jsonw_key(&w, "file");
        ac_jsonw_string(&w, x->file);
        ac_jsonw_key(&w, "analysed");
        ac_jsonw_bool(&w, x->analysis != NULL);
        ac_jsonw_key(&w, "verdict");
        ac_jsonw_string(&w, verdict_key(x));
        if (x->changes != NULL && x->changes[0] != '\0') {
            ac_jsonw_key(&w, "changes");
            ac_jsonw_string(&w, x->changes);
        }
        if (x->error != NULL && x->error[0] != '\0') {
            ac_jsonw_key(&w, "error");
            ac_jsonw_string(&w, x->error);
        }
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_key(&w, "rows");
    ac_jsonw_array_begin(&w);
    for (size_t r = 0; r < t->nrows; r++) {
        const ac_compare_row *row = &t->rows[r];
        ac_jsonw_object_begin(&w);
        ac_jsonw_key(&w, "name");
        ac_jsonw_string(&w, row->name);
        ac_jsonw_key(&w, "metric");
        ac_jsonw_string(&w, row->metric);
        if (row->node != NULL) {
            ac_jsonw_key(&w, "node");
            ac_jsonw_string(&w, row->node);
        }
        ac_jsonw_key(&w, "unit");
        ac_jsonw_string(&w, row->unit);
        ac_jsonw_key(&w, "better");
        ac_jsonw_string(&w, row->better == AC_COMPARE_LOWER ? "lower" : "higher");
        if (strcmp(row->metric, "resilience_boundary") == 0) {
            /* the fluid study's B_r: no stated error (doc/models.md §6) */
            ac_jsonw_key(&w, "approximation");
            ac_jsonw_string(&w, "fluid");
            ac_jsonw_key(&w, "expected_relative_error");
            ac_jsonw_null(&w);
        }
        if (row->best != AC_NONE) {
            ac_jsonw_key(&w, "best");
            ac_jsonw_string(&w, run->variants[row->best].id);
        }
        ac_jsonw_key(&w, "cells");
        ac_jsonw_array_begin(&w);
        for (size_t v = 0; v < run->nvariants; v++) {
            const ac_compare_cell *c = &row->cells[v];
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "variant");
            ac_jsonw_string(&w, run->variants[v].id);
            if (c->best) {
                ac_jsonw_key(&w, "best");
                ac_jsonw_bool(&w, 1);
            }
            if (c->present && isfinite(c->value)) {
                ac_jsonw_key(&w, "value");
                ac_jsonw_double(&w, c->value);
            } else if (c->present && isinf(c->value)) {
                ac_jsonw_key(&w, "unbounded");
                ac_jsonw_bool(&w, 1);
            }
            if (strcmp(row->metric, "worst_case_score") == 0)
                json_worst_sim(&w, &run->variants[v]);
            if (c->has_status) {
                ac_jsonw_key(&w, "status");
                ac_jsonw_string(&w, ac_check_status_name(c->status));
                if (c->present && isfinite(c->limit)) {
                    ac_jsonw_key(&w, "limit");
                    ac_jsonw_double(&w, c->limit);
                }
            }
            ac_jsonw_object_end(&w);
        }
        ac_jsonw_array_end(&w);
        ac_jsonw_object_end(&w);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    ac_report_compare_table_free(t);
    return ferror(fp) ? AC_EIO : AC_OK;
}
