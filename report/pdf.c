/*
 * The PDF report (libharu 2.3.0): see ac_report_pdf in archcheck/report.h.
 *
 * The document machinery (set-up, fonts, errors, pages, paragraphs, table rows) is shared with
 * report/pdf_compare.c in report/pdf_doc.c: libharu's error handler longjmps back to
 * ac_pdf_doc_write, which frees the document and the output buffer (the only allocations) and
 * leaves no file behind. Drawing helpers never allocate. Determinism: no /ID, no dates unless
 * asked, fixed fonts and order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpdf.h>

#include "archcheck/report.h"
#include "archcheck/rules.h"
#include "report/pdf_doc.h"
#include "report/plot.h"

#define MAX_COLS 8

typedef ac_pdf_doc pdf_doc;
typedef ac_pdf_rgb rgb;

void ac_report_pdf_options_init(ac_report_pdf_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

/* ---------------------------------------------------------------- formatting */

static void fmt_num(char *buf, size_t n, double v)
{
    if (!isfinite(v))
        snprintf(buf, n, isnan(v) ? "\xE2\x80\x93" : v > 0 ? "\xE2\x88\x9E" : "\xE2\x88\x92\xE2\x88\x9E");
    else if (v == 0.0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%.4g", v);
}

/* A quantity with its unit: seconds get ms or µs when small. */
static void fmt_qty(char *buf, size_t n, double v, const char *unit)
{
    char num[48];
    if (!isfinite(v)) {
        fmt_num(buf, n, v);
        return;
    }
    if (strcmp(unit, "s") == 0) {
        double a = fabs(v);
        if (v == 0.0)
            snprintf(buf, n, "0 s");
        else if (a < 1e-3)
            snprintf(buf, n, "%.4g \xC2\xB5s", v * 1e6);
        else if (a < 1.0)
            snprintf(buf, n, "%.4g ms", v * 1e3);
        else
            snprintf(buf, n, "%.4g s", v);
        return;
    }
    fmt_num(num, sizeof num, v);
    if (unit[0] == '\0')
        snprintf(buf, n, "%s", num);
    else
        snprintf(buf, n, "%s %s", num, unit);
}

static void fmt_pct(char *buf, size_t n, double rel)
{
    if (!isfinite(rel))
        snprintf(buf, n, "\xE2\x80\x93");
    else if (rel == 0.0)
        snprintf(buf, n, "0 (exact)");
    else
        snprintf(buf, n, "\xC2\xB1%.2g%%", 100.0 * rel);
}

static const char *verdict_label(ac_verdict v)
{
    switch (v) {
    case AC_VERDICT_PASS: return "PASS";
    case AC_VERDICT_FAIL: return "FAIL";
    case AC_VERDICT_INCONCLUSIVE: return "INCONCLUSIVE";
    case AC_VERDICT_INVALID: return "INVALID INPUT";
    }
    return "?";
}

static rgb verdict_color(ac_verdict v)
{
    return v == AC_VERDICT_PASS           ? AC_PDF_PASS
           : v == AC_VERDICT_INCONCLUSIVE ? AC_PDF_INC
                                          : AC_PDF_FAIL;
}

/* ---------------------------------------------------------------- flow */

static void paragraph(pdf_doc *d, const char *text)
{
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
}

static void bullet(pdf_doc *d, const char *text)
{
    ac_pdf_doc_room_ensure(d, BODY * 1.3);
    ac_plot_text(&d->cv, d->cv.regular, BODY, MARGIN_X + 4.0, d->y - BODY, AC_PLOT_LEFT,
                 "\xE2\x80\xA2");
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 14.0, text);
    d->y += BODY * 0.25;
}

/* ---------------------------------------------------------------- tables */

typedef struct pdf_col {
    const char *title;
    double width;
    ac_plot_align align;
} pdf_col;

/* The shared cells of a row of `cols`, every text in `font`. */
static void make_cells(const pdf_col *cols, size_t n, const char *const *texts, HPDF_Font font,
                       ac_pdf_cell *out)
{
    memset(out, 0, n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        out[i].text = texts[i];
        out[i].font = font;
        out[i].width = cols[i].width;
        out[i].align = cols[i].align;
    }
}

static double row_height(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *texts,
                         HPDF_Font font)
{
    ac_pdf_cell cells[MAX_COLS];
    make_cells(cols, n, texts, font, cells);
    return ac_pdf_doc_row_height(d, cells, n);
}

/* A row; the cell hl_col (if < n) is drawn bold in the colour hl. */
static void draw_row(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *texts,
                     HPDF_Font font, double h, int shade, size_t hl_col, rgb hl)
{
    ac_pdf_cell cells[MAX_COLS];
    make_cells(cols, n, texts, font, cells);
    if (hl_col < n) {
        cells[hl_col].font = d->cv.bold;
        cells[hl_col].color = &hl;
        cells[hl_col].restore = 1;
    }
    ac_pdf_doc_row_draw(d, cells, n, h, shade);
}

static void table_header(pdf_doc *d, const pdf_col *cols, size_t n)
{
    const char *titles[MAX_COLS];
    double h;
    for (size_t i = 0; i < n; i++)
        titles[i] = cols[i].title;
    h = row_height(d, cols, n, titles, d->cv.bold);
    ac_pdf_doc_room_ensure(d, h + 16.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.8);
    draw_row(d, cols, n, titles, d->cv.bold, h, 0, MAX_COLS, AC_PDF_BLACK);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.6);
}

/* One row; on a page break the header is repeated. */
static void table_row(pdf_doc *d, const pdf_col *cols, size_t n, const char *const *cells,
                      size_t index, size_t hl_col, rgb hl)
{
    double h = row_height(d, cols, n, cells, d->cv.regular);
    if (d->y - h < MARGIN_BOTTOM) {
        ac_pdf_doc_page_new(d);
        table_header(d, cols, n);
    }
    draw_row(d, cols, n, cells, d->cv.regular, h, index % 2 == 1, hl_col, hl);
}

static void table_end(pdf_doc *d)
{
    d->y -= 10.0;
}

/* ---------------------------------------------------------------- page 1: the verdict */

/* Does a check carry a simulated value, or a finding quote a simulation (the basins of a
 * metastable pool, a simulated jsq/jiq pool)? */
static int quotes_simulation(const ac_report_file *rf)
{
    const ac_analysis *a = rf->analysis;
    for (size_t k = 0; a != NULL && k < a->nchecks; k++)
        if (a->checks[k].has_sim)
            return 1;
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *dg = &rf->diags->items[i];
        if (strstr(dg->message, "simulat") != NULL ||
            (dg->detail != NULL && strstr(dg->detail, "simulat") != NULL))
            return 1;
    }
    return 0;
}

static void write_meta(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf,
                       const ac_report_pdf_options *opt)
{
    static const pdf_col cols[] = {{"", 90.0, AC_PLOT_LEFT}, {"", CONTENT_W - 90.0, AC_PLOT_LEFT}};
    char seed[96], created[64], sim[300];
    const ac_analysis *a = rf->analysis;
    const char *rows[8][2];
    size_t n = 0;
    unsigned long s = run->seed;
    const char *src = run->has_seed ? "(--seed)" : "(default)";
    if (!run->has_seed && rf->model != NULL && rf->model->faults.has_seed) {
        s = rf->model->faults.seed;
        src = "(the file's <faults seed>)";
    }
    snprintf(seed, sizeof seed, "%lu %s", s, src);
    rows[n][0] = "File";
    rows[n++][1] = rf->file;
    rows[n][0] = "SHA-256";
    rows[n++][1] = rf->sha256[0] != '\0' ? rf->sha256 : "(not read)";
    rows[n][0] = "archcheck";
    rows[n++][1] = AC_VERSION;
    rows[n][0] = "Seed";
    rows[n++][1] = seed;
    rows[n][0] = "Fails on";
    rows[n++][1] = ac_severity_name(run->fail_on);
    if (a != NULL) {
        if (a->sim != NULL)
            snprintf(sim, sizeof sim,
                     "simulated: %zu replications, %llu events, seed %lu, worst relative 95%% "
                     "half-width %.2g%%%s",
                     a->sim->replications, a->sim->events, a->sim->seed,
                     100.0 * a->sim->rel_halfwidth, a->sim->converged ? "" : " (not converged)");
        else if (a->sim_note[0] != '\0')
            snprintf(sim, sizeof sim, "not simulated: %s", a->sim_note);
        else if (quotes_simulation(rf))
            snprintf(sim, sizeof sim,
                     "no simulation of the whole model; the findings quote the simulations "
                     "that decided them");
        else
            snprintf(sim, sizeof sim, "not needed (no check was undecided by its approximation)");
        rows[n][0] = "Validation";
        rows[n++][1] = sim;
    }
    if (opt->has_creation_date) {
        ac_pdf_doc_created_format(opt, created, sizeof created);
        rows[n][0] = "Created";
        rows[n++][1] = created;
    }
    for (size_t i = 0; i < n; i++) {
        double h = row_height(d, cols, 2, rows[i], d->cv.regular);
        ac_pdf_doc_room_ensure(d, h);
        draw_row(d, cols, 2, rows[i], d->cv.regular, h, 0, 0, AC_PDF_BLACK);
    }
    d->y -= 8.0;
}

static void write_verdict(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf)
{
    const char *v = verdict_label(rf->verdict);
    rgb col = verdict_color(rf->verdict);
    double size = 40.0, w, box_h = 58.0;
    char summary[300];
    size_t pass = 0, fail = 0, inc = 0, shown = 0, supp = 0;
    const ac_analysis *a = rf->analysis;
    ac_report_checks_count(a, &pass, &fail, &inc);
    for (size_t i = 0; i < rf->diags->count; i++) {
        if (rf->diags->items[i].suppressed)
            supp++;
        else
            shown++;
    }
    ac_pdf_doc_room_ensure(d, box_h + 10.0);
    w = ac_plot_text_width(&d->cv, d->cv.bold, size, v);
    ac_plot_set_rgb_stroke(&d->cv, col.r, col.g, col.b);
    ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
    ac_plot_rect_stroke(&d->cv, MARGIN_X, d->y - box_h, w + 28.0, box_h, 2.5);
    ac_plot_text(&d->cv, d->cv.bold, size, MARGIN_X + 14.0, d->y - box_h + 16.0, AC_PLOT_LEFT, v);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    if (a != NULL)
        snprintf(summary, sizeof summary,
                 "Verdict of %s. Checks: %zu pass, %zu fail, %zu inconclusive. Findings: %zu "
                 "reported, %zu suppressed. Findings at or above '%s' fail the verdict; an "
                 "undecided check makes it inconclusive.",
                 run->command, pass, fail, inc, shown, supp, ac_severity_name(run->fail_on));
    else
        snprintf(summary, sizeof summary,
                 "The input could not be analysed: %zu finding%s below say why.", shown,
                 shown == 1 ? "" : "s");
    {
        double tx = MARGIN_X + w + 44.0, tw = MARGIN_X + CONTENT_W - tx;
        size_t lines = ac_plot_text_lines(&d->cv, d->cv.regular, 9.0, summary, tw);
        double ty = d->y - box_h / 2.0 + (double)lines * 11.5 / 2.0 - 9.0;
        ac_plot_text_wrapped(&d->cv, d->cv.regular, 9.0, tx, ty, tw, 11.5, AC_PLOT_LEFT, summary);
    }
    d->y -= box_h + 14.0;
}

static void write_checks(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Check", 150.0, AC_PLOT_LEFT},
                                   {"Status", 72.0, AC_PLOT_LEFT},
                                   {"Value (expected error)", 84.0, AC_PLOT_LEFT},
                                   {"Limit", 62.0, AC_PLOT_LEFT},
                                   {"Simulation (95% CI)", 100.0, AC_PLOT_LEFT},
                                   {"Line", 30.8, AC_PLOT_RIGHT}};
    const ac_analysis *a = rf->analysis;
    if (a == NULL)
        return;
    ac_pdf_doc_heading_write(d, 12.0, "Checks");
    if (a->nchecks == 0) {
        paragraph(d, "No check: the file states no requirement and has no node to check.");
        return;
    }
    table_header(d, cols, 6);
    for (size_t k = 0; k < a->nchecks; k++) {
        const ac_check *c = &a->checks[k];
        char status[64], value[160], limit[64], sim[192], line[16], v[48], e[32], l[48];
        const char *cells[6];
        snprintf(status, sizeof status, "%s%s%s%s", ac_report_check_status_label(c->status),
                 c->status != AC_CHECK_PASS && c->rule[0] != '\0' ? " " : "",
                 c->status != AC_CHECK_PASS ? c->rule : "", c->suppressed ? "\n(suppressed)" : "");
        value[0] = limit[0] = sim[0] = '\0';
        if (c->has_value) {
            fmt_qty(v, sizeof v, c->value, c->unit);
            if (c->abs_error > 0.0 && isfinite(c->abs_error)) {
                char ab[48];
                fmt_qty(ab, sizeof ab, c->abs_error, c->unit);
                fmt_pct(e, sizeof e, isfinite(c->rel_error) ? c->rel_error : 0.0);
                snprintf(value, sizeof value, "%s (%s + %s)", v, e, ab);
            } else if (c->rel_error > 0.0 && isfinite(c->rel_error)) {
                fmt_pct(e, sizeof e, c->rel_error);
                snprintf(value, sizeof value, "%s (%s)", v, e);
            } else {
                snprintf(value, sizeof value, "%s", v);
            }
            fmt_qty(l, sizeof l, c->limit, c->unit);
            snprintf(limit, sizeof limit, "%s %s", c->upper ? "\xE2\x89\xA4" : "\xE2\x89\xA5", l);
        }
        if (c->has_sim) {
            fmt_qty(v, sizeof v, c->sim_value, c->unit);
            fmt_qty(l, sizeof l, c->sim_ci95, c->unit);
            snprintf(sim, sizeof sim, "%s \xC2\xB1 %s%s", v, l,
                     c->settled_by_simulation ? "\n(settled the check)" : "");
            if (c->sim_level > 0.0 && c->sim_level != 0.95) { /* the sequential rule's */
                size_t used = strlen(sim);
                fmt_qty(l, sizeof l, c->sim_halfwidth, c->unit);
                snprintf(sim + used, sizeof sim - used, "\n(judged at %.3g%%: \xC2\xB1 %s)",
                         100.0 * c->sim_level, l);
            }
        }
        snprintf(line, sizeof line, "%u", c->loc.line);
        cells[0] = c->name;
        cells[1] = status;
        cells[2] = value;
        cells[3] = limit;
        cells[4] = sim;
        cells[5] = line;
        table_row(d, cols, 6, cells, k, 1, ac_pdf_doc_status_color(c->status));
    }
    table_end(d);
}

static void write_findings(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Rule", 40.0, AC_PLOT_LEFT},
                                   {"Severity", 58.0, AC_PLOT_LEFT},
                                   {"Where", 70.0, AC_PLOT_LEFT},
                                   {"Message", CONTENT_W - 168.0, AC_PLOT_LEFT}};
    ac_pdf_doc_heading_write(d, 12.0, "Findings");
    if (rf->diags->count == 0) {
        paragraph(d, "No finding.");
        return;
    }
    table_header(d, cols, 4);
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *g = &rf->diags->items[i];
        char sev[64], where[160], msg[4096];
        const char *cells[4];
        rgb col = g->suppressed ? AC_PDF_BLACK
                  : g->severity == AC_SEV_ERROR ? AC_PDF_FAIL
                  : g->severity == AC_SEV_WARNING ? AC_PDF_INC
                                                  : AC_PDF_BLACK;
        snprintf(sev, sizeof sev, "%s%s", ac_severity_name(g->severity),
                 g->suppressed ? "\n(suppressed)" : "");
        if (g->line > 0)
            snprintf(where, sizeof where, "line %u:%u%s%s", g->line, g->column,
                     g->node != NULL ? "\nnode " : "", g->node != NULL ? g->node : "");
        else
            snprintf(where, sizeof where, "%s%s", g->node != NULL ? "node " : "whole file",
                     g->node != NULL ? g->node : "");
        snprintf(msg, sizeof msg, "%s%s%s%s%s", g->message, g->detail != NULL ? "\n" : "",
                 g->detail != NULL ? g->detail : "", g->suppressed ? "\nsuppressed: " : "",
                 g->suppressed ? (g->suppress_reason != NULL ? g->suppress_reason : "") : "");
        cells[0] = g->rule;
        cells[1] = sev;
        cells[2] = where;
        cells[3] = msg;
        table_row(d, cols, 4, cells, i, 1, col);
    }
    table_end(d);
}

/* ---------------------------------------------------------------- node pages */

#define CCDF_POINTS 161
#define QLEN_POINTS 400

static void describe_node(char *buf, size_t n, const ac_node *node, int polled)
{
    char a[64], b[64];
    if (node->kind == AC_NODE_FUNCTION) {
        const ac_function *f = &node->u.function;
        snprintf(buf, n,
                 "function (%s, concurrency %zu, duration %.4g ms, cold start %.4g ms, keep-alive "
                 "%.4g s, timeout %.4g s, retries %zu%s)",
                 polled                                 ? "polled by its queue"
                 : f->invocation == AC_INVOCATION_ASYNC ? "async"
                                                        : "sync",
                 f->concurrency,
                 1e3 * f->duration, 1e3 * f->cold_start, f->keep_alive, f->timeout, f->retries,
                 f->provisioned > 0 ? ", provisioned" : "");
        return;
    }
    if (node->kind == AC_NODE_QUEUE) {
        const ac_queue *q = &node->u.queue;
        snprintf(buf, n, "queue (batch %zu, max-consumers %zu, visibility %.4g s, max-receives %zu)",
                 q->batch_size, q->max_consumers, q->visibility_timeout, q->max_receives);
        return;
    }
    if (node->kind == AC_NODE_GATEWAY) {
        const ac_gateway *g = &node->u.gateway;
        if (isinf(g->rate_limit))
            snprintf(buf, n, "gateway (no rate limit, timeout %.4g s)", g->timeout);
        else
            snprintf(buf, n, "gateway (token bucket %.6g/s, burst %zu, timeout %.4g s)",
                     g->rate_limit, g->burst, g->timeout);
        return;
    }
    {
        const ac_pool *p = &node->u.pool;
        char disp[96], buffer[64], timeout[96];
        if (p->dispatch == AC_DISPATCH_POWER_OF_D)
            snprintf(disp, sizeof disp, "power-of-d (d = %zu, %s)", p->d,
                     p->sampling == AC_SAMPLING_DISTINCT ? "distinct" : "with replacement");
        else
            snprintf(disp, sizeof disp, "%s", ac_dispatch_name(p->dispatch));
        if (p->buffer == AC_UNBOUNDED)
            snprintf(buffer, sizeof buffer, "unbounded buffer");
        else
            snprintf(buffer, sizeof buffer, "buffer %zu%s", p->buffer,
                     p->dispatch == AC_DISPATCH_SHARED_QUEUE ? " waiting" : " per server");
        if (p->timeout > 0.0) {
            fmt_qty(a, sizeof a, p->timeout, "s");
            snprintf(timeout, sizeof timeout, ", timeout %s, %zu retr%s", a, p->retries,
                     p->retries == 1 ? "y" : "ies");
        } else {
            timeout[0] = '\0';
        }
        fmt_qty(b, sizeof b, p->service_rate, "/s");
        snprintf(buf, n, "pool: %zu server%s at %s each, %s, %s%s%s", p->servers,
                 p->servers == 1 ? "" : "s", b, disp, buffer, timeout,
                 p->has_autoscale ? ", autoscaled (analysed at its starting size)" : "");
    }
}

static void sim_cell(char *buf, size_t n, const ac_sim_estimate *e, const char *unit)
{
    char v[48], c[48];
    if (e == NULL || e->n == 0 || !isfinite(e->mean)) {
        buf[0] = '\0';
        return;
    }
    fmt_qty(v, sizeof v, e->mean, unit);
    fmt_qty(c, sizeof c, e->ci95, unit);
    snprintf(buf, n, "%s \xC2\xB1 %s", v, c);
}

static void write_kpis(pdf_doc *d, const ac_analysis *a, size_t i)
{
    static const pdf_col cols[] = {{"Quantity", 120.0, AC_PLOT_LEFT},
                                   {"Value", 76.0, AC_PLOT_LEFT},
                                   {"Approximation", 80.0, AC_PLOT_LEFT},
                                   {"Expected error", 62.0, AC_PLOT_LEFT},
                                   {"Simulation (95% CI)", 104.0, AC_PLOT_LEFT},
                                   {"Measured error", CONTENT_W - 442.0, AC_PLOT_LEFT}};
    const ac_node_analysis *na = &a->nodes[i];
    const ac_sim_node_result *sn = a->sim != NULL && i < a->sim->nnodes ? &a->sim->nodes[i] : NULL;
    struct {
        const char *name;
        double v;
        const char *unit;
        const ac_sim_estimate *sim;
    } rows[] = {
        {"arrival rate (first attempts)", na->arrival_rate, "/s", NULL},
        {"throughput", na->throughput, "/s", sn != NULL ? &sn->throughput : NULL},
        {"utilisation", na->utilization, "", sn != NULL ? &sn->utilization : NULL},
        {"loss probability", na->loss_probability, "", sn != NULL ? &sn->failure_probability : NULL},
        {a->model->nodes[i].kind == AC_NODE_FUNCTION  ? "mean busy instances"
         : a->model->nodes[i].kind == AC_NODE_QUEUE   ? "mean messages held"
         : a->model->nodes[i].kind == AC_NODE_GATEWAY ? "mean tokens in use"
                                               : "mean jobs per server",
         na->mean_jobs, "", sn != NULL ? &sn->mean_jobs : NULL},
        {"mean response time", na->mean_response_time, "s",
         sn != NULL ? &sn->mean_response_time : NULL},
        {"response time p50", na->p50, "s", sn != NULL ? &sn->p50_response_time : NULL},
        {"response time p95", na->p95, "s", sn != NULL ? &sn->p95_response_time : NULL},
        {"response time p99", na->p99, "s", sn != NULL ? &sn->p99_response_time : NULL},
    };
    table_header(d, cols, 6);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char v[64], e[32], s[128], m[32];
        const char *cells[6];
        fmt_qty(v, sizeof v, rows[k].v, rows[k].unit);
        fmt_pct(e, sizeof e, na->expected_rel_error);
        sim_cell(s, sizeof s, rows[k].sim, rows[k].unit);
        m[0] = '\0';
        if (rows[k].sim != NULL && rows[k].sim->n > 0 && isfinite(rows[k].v) &&
            rows[k].sim->mean > 0.0 && isfinite(rows[k].sim->mean))
            snprintf(m, sizeof m, "%+.2g%%", 100.0 * (rows[k].v - rows[k].sim->mean) / rows[k].sim->mean);
        cells[0] = rows[k].name;
        cells[1] = v;
        cells[2] = ac_solver_approx_name(na->approximation);
        cells[3] = e;
        cells[4] = s;
        cells[5] = m;
        table_row(d, cols, 6, cells, k, MAX_COLS, AC_PDF_BLACK);
    }
    table_end(d);
}

static void write_equilibria(pdf_doc *d, const ac_solver_pool_result *r)
{
    static const pdf_col cols[] = {{"#", 18.0, AC_PLOT_LEFT},
                                   {"Stability", 62.0, AC_PLOT_LEFT},
                                   {"Found from", 66.0, AC_PLOT_LEFT},
                                   {"Jobs per server", 66.0, AC_PLOT_LEFT},
                                   {"Mean response", 60.0, AC_PLOT_LEFT},
                                   {"Timeout fraction", 56.0, AC_PLOT_LEFT},
                                   {"Slowest eigenvalue, relaxation", 80.0, AC_PLOT_LEFT},
                                   {"Lyapunov", 70.8, AC_PLOT_LEFT}};
    table_header(d, cols, 8);
    for (size_t e = 0; e < r->nequilibria; e++) {
        const ac_solver_equilibrium *eq = &r->equilibria[e];
        const ac_solver_kpi *k = eq->has_refined ? &eq->refined : &eq->mean_field;
        char idx[24], stab[64], from[96], jobs[64], resp[48], to[32], eig[96], lya[96], t[48];
        const char *cells[8];
        snprintf(idx, sizeof idx, "%zu", e);
        snprintf(stab, sizeof stab, "%s%s", eq->stable ? "stable" : "UNSTABLE",
                 e == r->operating ? "\n(operating)"
                 : r->bistable && e == r->bad ? "\n(bad)"
                                              : "");
        {
            static const struct {
                unsigned bit;
                const char *name;
            } srcs[] = {{AC_SOLVER_FROM_EMPTY, "empty"},
                        {AC_SOLVER_FROM_FULL, "full"},
                        {AC_SOLVER_FROM_CLOSED_FORM, "closed form"},
                        {AC_SOLVER_FROM_BETWEEN, "saddle search"}};
            size_t len = 0;
            from[0] = '\0';
            for (size_t b = 0; b < sizeof srcs / sizeof srcs[0] && len < sizeof from; b++)
                if (eq->found_from & srcs[b].bit)
                    len += (size_t)snprintf(from + len, sizeof from - len, "%s%s",
                                            len > 0 ? ", " : "", srcs[b].name);
        }
        if (isfinite(eq->mean_jobs_std))
            snprintf(jobs, sizeof jobs, "%.4g \xC2\xB1 %.2g (std)", k->mean_jobs, eq->mean_jobs_std);
        else
            snprintf(jobs, sizeof jobs, "%.4g", k->mean_jobs);
        fmt_qty(resp, sizeof resp, k->mean_response_time, "s");
        fmt_num(to, sizeof to, k->timeout_fraction);
        fmt_qty(t, sizeof t, eq->relaxation_time, "s");
        if (eq->max_eigenvalue_imag != 0.0 && isfinite(eq->max_eigenvalue_imag))
            snprintf(eig, sizeof eig, "%.4g \xC2\xB1 %.3gi /s, %s", eq->max_real_eigenvalue,
                     fabs(eq->max_eigenvalue_imag), t);
        else
            snprintf(eig, sizeof eig, "%.4g /s, %s", eq->max_real_eigenvalue, t);
        snprintf(lya, sizeof lya, "%s",
                 !eq->lyapunov_solved ? "not solved"
                 : eq->lyapunov_pd    ? "solved, positive definite"
                                      : "solved, not positive definite");
        cells[0] = idx;
        cells[1] = stab;
        cells[2] = from;
        cells[3] = jobs;
        cells[4] = resp;
        cells[5] = to;
        cells[6] = eig;
        cells[7] = lya;
        table_row(d, cols, 8, cells, e, 1, eq->stable ? AC_PDF_PASS : AC_PDF_FAIL);
    }
    table_end(d);
}

/* P(jobs >= k) of an M/M/N/N+B shared queue (exact, no retries): k = 0.. into x, y. */
static size_t shared_queue_tail(const ac_solver_pool_result *r, double *x, double *y, size_t max)
{
    double p[QLEN_POINTS + 1], sum = 0.0, tail = 0.0;
    size_t n = 0, cap = r->buffer == AC_UNBOUNDED ? (size_t)-1 : r->servers + r->buffer;
    double lam = r->arrival_rate, mu = r->service_rate;
    p[0] = 1.0;
    sum = 1.0;
    for (n = 1; n <= max && n <= cap; n++) {
        double servers = (double)(n < r->servers ? n : r->servers);
        p[n] = p[n - 1] * lam / (servers * mu);
        sum += p[n];
        if (!isfinite(sum))
            return 0;
        if (n > r->servers && p[n] < 1e-14 * sum)
            break;
    }
    if (n > max)
        return 0; /* not converged within the points available */
    if (n > cap)
        n--;
    for (size_t k = n + 1; k-- > 0;) {
        tail += p[k] / sum;
        x[k] = (double)k;
        y[k] = tail;
    }
    return n + 1;
}

static void write_node_plots(pdf_doc *d, const ac_model *m, const ac_analysis *a, size_t i)
{
    const ac_node_analysis *na = &a->nodes[i];
    const ac_solver_pool_result *r = na->pool;
    double qx[QLEN_POINTS + 1], qy[3][QLEN_POINTS + 1];
    double tx[CCDF_POINTS], ty[3][CCDF_POINTS];
    char qlabels[3][64], tlabels[3][96], m95[64], m99[64], v[48];
    size_t eqs[3], neq = 0;
    double tmax = 0.0, box_w = (CONTENT_W - 14.0) / 2.0, box_h = 232.0;
    ac_plot qp, tp;
    static const ac_plot_style styles[] = {AC_PLOT_SOLID, AC_PLOT_DASHED, AC_PLOT_DOTTED};
    ac_plot_init(&qp, "Queue length: P(jobs \xE2\x89\xA5 k) = q\xE2\x82\x96", AC_PLOT_LINEAR,
                 "k (jobs at a server)", AC_PLOT_LOG10, "P(jobs \xE2\x89\xA5 k)");
    ac_plot_init(&tp, "Response time: P(T > t)", AC_PLOT_LINEAR, "t (s)", AC_PLOT_LOG10,
                 "P(T > t)");
    tp.yaxis.min = 1e-4;
    tp.yaxis.max = 1.0;
    qp.xaxis.integer = 1;
    if (r != NULL) {
        qp.empty_note = na->overload ? "no distribution: the pool is overloaded (no steady state)"
                                     : "no distribution: the pool has no equilibrium";
        tp.empty_note = qp.empty_note;
    } else {
        qp.empty_note = na->gateway != NULL ? "a gateway admits or rejects at once: no queue"
                                            : "no distribution for this node";
        tp.empty_note = na->gateway != NULL ? "admission takes no time: no response-time law"
                                            : "no response-time law for this node";
    }
    if (r != NULL && !na->overload) {
        /* the operating equilibrium first, then the other stable ones */
        eqs[neq++] = r->operating;
        for (size_t e = 0; e < r->nequilibria && neq < 3; e++)
            if (e != r->operating && r->equilibria[e].stable)
                eqs[neq++] = e;
        for (size_t j = 0; j < neq; j++) {
            const ac_solver_equilibrium *eq = &r->equilibria[eqs[j]];
            const ac_solver_kpi *k = eq->has_refined ? &eq->refined : &eq->mean_field;
            /* the time axis follows the operating equilibrium; the others are far slower
               (a metastable pool's bad state) and are named with their p99 */
            if (isfinite(k->p99)) /* the axis fits every curve drawn */
                tmax = fmax(tmax, k->p99);
            snprintf(qlabels[j], sizeof qlabels[j], "%s equilibrium %zu",
                     eqs[j] == r->operating ? "operating"
                     : r->bistable && eqs[j] == r->bad ? "bad"
                                                       : "stable",
                     eqs[j]);
            if (j > 0 && isfinite(k->p99)) {
                fmt_qty(v, sizeof v, k->p99, "s");
                snprintf(tlabels[j], sizeof tlabels[j], "%s (p99 %s)", qlabels[j], v);
            } else {
                snprintf(tlabels[j], sizeof tlabels[j], "%s", qlabels[j]);
            }
        }
        if (isfinite(na->p99))
            tmax = fmax(tmax, na->p99);
        if (!(tmax > 1e-9)) /* a quantile at an atom (0): the service time sets the scale */
            tmax = 1.0 / r->service_rate;
        tmax *= 1.3;
        for (size_t s = 0; s < CCDF_POINTS; s++)
            tx[s] = tmax * (double)s / (double)(CCDF_POINTS - 1);
        if (r->dispatch == AC_DISPATCH_SHARED_QUEUE) {
            const ac_pool *pool = &m->nodes[i].u.pool;
            size_t n = 0;
            qp.title = "Jobs in the pool: P(jobs \xE2\x89\xA5 k)";
            qp.xaxis.label = "k (jobs in the pool, M/M/N exact)";
            if (pool->timeout <= 0.0 && pool->retries == 0)
                n = shared_queue_tail(r, qx, qy[0], QLEN_POINTS);
            if (n > 0)
                ac_plot_add(&qp, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, qx, qy[0], n, NULL);
            else
                qp.empty_note = pool->timeout > 0.0
                                    ? "with timeouts the shared queue is solved as a fluid model: "
                                      "no queue-length distribution"
                                    : "the distribution needs more than 400 levels: not drawn";
        }
        for (size_t j = 0; j < neq; j++) {
            const ac_solver_equilibrium *eq = &r->equilibria[eqs[j]];
            size_t n = 0;
            if (r->dispatch != AC_DISPATCH_SHARED_QUEUE) {
                qx[0] = 0.0;
                qy[j][0] = 1.0;
                for (n = 1; n <= eq->dim && n <= QLEN_POINTS; n++) {
                    qx[n] = (double)n;
                    qy[j][n] = eq->q[n - 1];
                    if (eq->q[n - 1] < 1e-12) {
                        n++;
                        break;
                    }
                }
                ac_plot_add(&qp, AC_PLOT_KIND_STEP, styles[j], qx, qy[j], n, qlabels[j]);
            }
            for (size_t s = 0; s < CCDF_POINTS; s++)
                ty[j][s] = ac_solver_pool_ccdf(r, eqs[j], tx[s]);
            ac_plot_add(&tp, AC_PLOT_KIND_LINE, styles[j], tx, ty[j], CCDF_POINTS, tlabels[j]);
        }
    }
    if (r == NULL && ac_node_analysis_has_law(na) && na->gateway == NULL) {
        /* a function or a queue: the time at the node, and a function's busy instances */
        const ac_solver_function_result *f = na->function;
        tp.title = na->queue != NULL ? "Time in the queue: P(W > t)" : "Time at the function: P(T > t)";
        tp.empty_note = NULL;
        tmax = (isfinite(na->p99) && na->p99 > 1e-9 ? na->p99 : na->mean_response_time) * 1.3;
        if (!(tmax > 1e-9)) /* the time is 0 with probability near 1 (an atom): 1 ms shows it */
            tmax = 1e-3;
        double top = 0.0;
        for (size_t s = 0; s < CCDF_POINTS; s++) {
            tx[s] = tmax * (double)s / (double)(CCDF_POINTS - 1);
            ty[0][s] = ac_node_analysis_ccdf(na, tx[s]);
            if (s > 0 && isfinite(ty[0][s]))
                top = fmax(top, ty[0][s]);
        }
        if (top >= tp.yaxis.min) /* else the curve lies under the axis: nothing to see */
            ac_plot_add(&tp, AC_PLOT_KIND_LINE, AC_PLOT_SOLID, tx, ty[0], CCDF_POINTS, NULL);
        else
            tp.empty_note = "the time is 0 but with a probability under 0.0001";
        if (f != NULL && f->mode == AC_SOLVER_FN_SYNC && f->concurrency > 0 && f->load > 0.0) {
            /* the busy count of a loss system: Poisson(load) truncated at C, its tail
               P(busy >= k) by a suffix sum, drawn at up to QLEN_POINTS values of k */
            size_t C = f->concurrency, step = C / QLEN_POINTS + 1, n = 0;
            double logA = log(f->load), tot = 0.0, tail = 0.0;
            for (size_t k = 0; k <= C; k++)
                tot += exp((double)k * logA - lgamma((double)k + 1.0) - f->load);
            qp.title = "Busy instances: P(busy \xE2\x89\xA5 k)";
            qp.xaxis.label = "k (busy instances, Erlang loss law)";
            qp.yaxis.label = "P(busy \xE2\x89\xA5 k)";
            qp.empty_note = NULL;
            for (size_t k = C + 1; k-- > 0;) {
                tail += exp((double)k * logA - lgamma((double)k + 1.0) - f->load);
                if (k % step == 0 && tot > 0.0 && k / step <= QLEN_POINTS) {
                    qx[k / step] = (double)k;
                    qy[0][k / step] = tail / tot;
                    n = n > k / step + 1 ? n : k / step + 1;
                }
            }
            while (n > 1 && qy[0][n - 2] < 1e-12)
                n--; /* drop the far tail */
            ac_plot_add(&qp, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, qx, qy[0], n, NULL);
        } else {
            qp.empty_note = na->queue != NULL ? "a queue: its consumers are on the function's page"
                                              : "no instance-count law for this invocation type";
        }
    }
    if (isfinite(na->p95) && na->p95 > 0.0) {
        fmt_qty(v, sizeof v, na->p95, "s");
        snprintf(m95, sizeof m95, "p95 %s", v);
        ac_plot_add_marker(&tp, na->p95, m95);
    }
    if (isfinite(na->p99) && na->p99 > 0.0) {
        fmt_qty(v, sizeof v, na->p99, "s");
        snprintf(m99, sizeof m99, "p99 %s", v);
        ac_plot_add_marker(&tp, na->p99, m99);
    }
    if (qp.nseries == 0 && tp.nseries == 0) { /* no empty axes: say why in a line */
        char why[300];
        snprintf(why, sizeof why, "No plots: %s; %s.", qp.empty_note != NULL ? qp.empty_note : "",
                 tp.empty_note != NULL ? tp.empty_note : "");
        paragraph(d, why);
        return;
    }
    ac_pdf_doc_room_ensure(d, box_h + 6.0);
    ac_plot_draw(&d->cv, &qp, MARGIN_X, d->y - box_h, box_w, box_h);
    ac_plot_draw(&d->cv, &tp, MARGIN_X + box_w + 14.0, d->y - box_h, box_w, box_h);
    d->y -= box_h + 12.0;
}

static void write_node_page(pdf_doc *d, const ac_report_file *rf, size_t i)
{
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    const ac_node *node = &m->nodes[i];
    const ac_node_analysis *na = &a->nodes[i];
    char title[512], desc[512], text[1024];
    ac_pdf_doc_page_new(d);
    if (node->label != NULL)
        snprintf(title, sizeof title, "Node %s \xE2\x80\x94 %s", node->id, node->label);
    else
        snprintf(title, sizeof title, "Node %s", node->id);
    ac_pdf_doc_heading_write(d, 15.0, title);
    describe_node(desc, sizeof desc, node, na->polled);
    paragraph(d, desc);
    if (!na->analysed) {
        snprintf(text, sizeof text,
                 "Not analysed (archcheck %s): the AC900 finding on this %s says why; its "
                 "checks are inconclusive.",
                 AC_VERSION, ac_node_kind_name(node->kind));
        paragraph(d, text);
        return;
    }
    if (na->overload) {
        paragraph(d, "Overloaded: the offered load is at least the capacity and the buffer is "
                     "unbounded, so the queues grow without bound and there is no steady state.");
    }
    ac_pdf_doc_heading_write(d, 11.0, "Steady state");
    write_kpis(d, a, i);
    if (na->pool != NULL && na->pool->nequilibria > 0) {
        const ac_solver_pool_result *r = na->pool;
        snprintf(text, sizeof text,
                 "Equilibria of the mean-field ODE (load %.4g, %zu level%s solved, dropped tail "
                 "mass below %.2g)%s",
                 r->load, r->truncation, r->truncation == 1 ? "" : "s", r->tail_mass,
                 r->bistable ? ": two stable equilibria, a metastable failure mode" : "");
        ac_pdf_doc_heading_write(d, 11.0, "Equilibria");
        paragraph(d, text);
        write_equilibria(d, r);
        if (r->bistable) {
            if (isfinite(r->smallest_burst.duration)) {
                char dur[48];
                fmt_qty(dur, sizeof dur, r->smallest_burst.duration, "s");
                snprintf(text, sizeof text,
                         "The smallest burst found that tips the pool into the bad equilibrium: "
                         "%.4g extra jobs/s for %s (%.4g jobs).",
                         r->smallest_burst.extra_rate, dur, r->smallest_burst.jobs);
            } else {
                snprintf(text, sizeof text, "No burst tried tipped the pool (%zu tried).",
                         r->nbursts);
            }
            paragraph(d, text);
        }
        if (na->basin_checked) {
            snprintf(text, sizeof text,
                     "Simulated with %zu servers: started empty it holds %.4g \xC2\xB1 %.2g jobs "
                     "per server (%s); started in the bad state, %.4g \xC2\xB1 %.2g (%s).",
                     r->servers, na->basin_good.mean, na->basin_good.ci95,
                     na->stays_good ? "stays good" : "leaves the good state", na->basin_bad.mean,
                     na->basin_bad.ci95,
                     na->stays_bad ? "stays bad: the failure mode is real" : "recovers");
            paragraph(d, text);
        }
    }
    write_node_plots(d, m, a, i);
    /*
     * TRANSIENT TRAJECTORIES: when ac_analysis gains transient results (a trajectory of the
     * mean jobs per server over time after a burst or along a <profile>), draw them here as
     * one more ac_plot (AC_PLOT_KIND_LINE, time on x, jobs per server on y, the recovery
     * requirement's limit as a marker). Nothing to draw until the analysis provides them.
     */
}

static void write_end_to_end(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Quantity", 150.0, AC_PLOT_LEFT},
                                   {"Value", 90.0, AC_PLOT_LEFT},
                                   {"Expected error", 80.0, AC_PLOT_LEFT},
                                   {"Simulation (95% CI)", CONTENT_W - 320.0, AC_PLOT_LEFT}};
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    const ac_end_to_end *e = &a->e2e;
    const ac_sim_entry_result *se =
        a->sim != NULL && a->sim->nentries == 1 ? &a->sim->entries[0] : NULL;
    char text[600];
    double box_h = 250.0;
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "End to end");
    if (!e->available) {
        paragraph(d, "No end-to-end numbers: the design has no open workload (sources), or its "
                     "routes could not be combined.");
    } else {
        struct {
            const char *name;
            double v;
            const char *unit;
            const ac_sim_estimate *sim;
            int show;
        } rows[] = {
            {"throughput", e->throughput, "/s", se != NULL ? &se->throughput : NULL, 1},
            {"loss probability", e->loss_probability, "",
             se != NULL ? &se->failure_probability : NULL, 1},
            {"mean response time", e->mean_response_time, "s",
             se != NULL ? &se->mean_response_time : NULL, 1},
            {"response time p50", e->p50, "s", se != NULL ? &se->p50_response_time : NULL,
             e->percentiles},
            {"response time p95", e->p95, "s", se != NULL ? &se->p95_response_time : NULL,
             e->percentiles},
            {"response time p99", e->p99, "s", se != NULL ? &se->p99_response_time : NULL,
             e->percentiles},
        };
        table_header(d, cols, 4);
        for (size_t k = 0, shown = 0; k < sizeof rows / sizeof rows[0]; k++) {
            char v[64], er[32], s[128];
            const char *cells[4];
            if (!rows[k].show)
                continue;
            fmt_qty(v, sizeof v, rows[k].v, rows[k].unit);
            fmt_pct(er, sizeof er, e->expected_rel_error);
            sim_cell(s, sizeof s, rows[k].sim, rows[k].unit);
            cells[0] = rows[k].name;
            cells[1] = v;
            cells[2] = er;
            cells[3] = s;
            table_row(d, cols, 4, cells, shown++, MAX_COLS, AC_PDF_BLACK);
        }
        table_end(d);
    }
    ac_pdf_doc_heading_write(d, 11.0, "Headroom");
    if (a->has_headroom) {
        ac_report_headroom_sentence(text, sizeof text, m, a);
        if (a->headroom_rel_error > 0.0) {
            char pct[32];
            size_t len = strlen(text);
            fmt_pct(pct, sizeof pct, a->headroom_rel_error);
            snprintf(text + len, sizeof text - len, " The factor's expected error: %s.", pct);
        }
        paragraph(d, text);
    } else {
        paragraph(d, "Not computed.");
    }
    if (e->available && e->grid_t != NULL && e->grid_ccdf != NULL && e->grid_n > 1) {
        ac_plot p;
        char m95[64], m99[64], lim[AC_PLOT_MAX_MARKERS][64], v[48];
        size_t nl = 0;
        ac_plot_init(&p, "End-to-end response time: P(T > t) (lattice law)", AC_PLOT_LINEAR,
                     "t (s)", AC_PLOT_LOG10, "P(T > t)");
        p.yaxis.min = 1e-4;
        p.yaxis.max = 1.0;
        ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_SOLID, e->grid_t, e->grid_ccdf, e->grid_n,
                    "end to end");
        if (e->percentiles) {
            fmt_qty(v, sizeof v, e->p95, "s");
            snprintf(m95, sizeof m95, "p95 %s", v);
            ac_plot_add_marker(&p, e->p95, m95);
            fmt_qty(v, sizeof v, e->p99, "s");
            snprintf(m99, sizeof m99, "p99 %s", v);
            ac_plot_add_marker(&p, e->p99, m99);
        }
        /* the latency limits end to end */
        for (size_t k = 0; k < a->nchecks && nl < AC_PLOT_MAX_MARKERS - 2; k++) {
            const ac_check *c = &a->checks[k];
            if (c->node != AC_NONE || !c->has_value || strcmp(c->unit, "s") != 0 ||
                strstr(c->name, "latency") == NULL || c->limit > e->grid_t[e->grid_n - 1])
                continue;
            fmt_qty(v, sizeof v, c->limit, "s");
            snprintf(lim[nl], sizeof lim[nl], "limit %s", v);
            ac_plot_add_marker(&p, c->limit, lim[nl]);
            nl++;
        }
        /* the time axis ends where the tail drops below the plot (and after every marker) */
        {
            double tmax = e->grid_t[e->grid_n - 1];
            for (size_t k = 0; k < e->grid_n; k++)
                if (e->grid_ccdf[k] < 1e-4) {
                    tmax = e->grid_t[k] * 1.1;
                    break;
                }
            for (size_t k = 0; k < p.nmarkers; k++)
                tmax = fmax(tmax, p.markers[k].x * 1.1);
            if (tmax > 0.0 && tmax < e->grid_t[e->grid_n - 1]) {
                p.xaxis.min = 0.0;
                p.xaxis.max = tmax;
            }
        }
        ac_pdf_doc_room_ensure(d, box_h);
        ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
        d->y -= box_h + 12.0;
    }
    {
        /* utilisation per analysed node */
        const char *names[24];
        double x[24], u[24], limit_u = NAN;
        size_t n = 0;
        ac_plot p;
        char title[128];
        for (size_t i = 0; i < m->nnodes && n < 24; i++) {
            if (!a->nodes[i].analysed)
                continue;
            names[n] = m->nodes[i].id;
            x[n] = (double)n;
            u[n] = a->nodes[i].overload ? 1.0 : a->nodes[i].utilization;
            n++;
        }
        for (size_t k = 0; k < a->nchecks; k++)
            if (a->checks[k].has_value && strncmp(a->checks[k].name, "utilization", 11) == 0)
                limit_u = isfinite(limit_u) ? fmin(limit_u, a->checks[k].limit) : a->checks[k].limit;
        if (n > 0) {
            snprintf(title, sizeof title, "Utilisation per node%s",
                     isfinite(limit_u) ? " (dashed: the requirement)" : "");
            ac_plot_init(&p, title, AC_PLOT_LINEAR, NULL, AC_PLOT_LINEAR, "utilisation");
            p.xaxis.categories = names;
            p.xaxis.ncategories = n;
            p.yaxis.min = 0.0;
            p.yaxis.max = 1.0;
            box_h = 190.0;
            ac_pdf_doc_bars_draw(d, &p, x, u, n, limit_u, box_h);
        }
    }
}

static const char *approx_explained(ac_solver_approx a)
{
    switch (a) {
    case AC_SOLVER_APPROX_EXACT:
        return "exact: a closed form or the exact Markov chain (random dispatch and shared queues "
               "without retries); the only error is the truncated tail.";
    case AC_SOLVER_APPROX_MEAN_FIELD:
        return "mean-field: the fixed point of the N \xE2\x86\x92 \xE2\x88\x9E limit of the pool; "
               "its stated error is the gap to the refined 1/N correction (or, for jsq and jiq, "
               "to the M/M/N bound).";
    case AC_SOLVER_APPROX_REFINED:
        return "refined: the mean field plus its 1/N and, where the terms decrease, 1/N\xC2\xB2 "
               "corrections (Gast and Van Houdt 2017; Gast, Bortolussi and Tribastone 2019); its "
               "stated error is the estimated size of the next term.";
    case AC_SOLVER_APPROX_FLUID:
        return "fluid: the deterministic fluid limit, used for transients of a shared queue.";
    case AC_SOLVER_APPROX_SIMULATION:
        return "simulation: the simulator's estimate (jsq and jiq pools at finite N, whose mean "
               "field is far off); its stated error is the 95% half-width, relative.";
    }
    return "";
}

static void write_method(pdf_doc *d, const ac_report_file *rf)
{
    static const pdf_col cols[] = {{"Node", 90.0, AC_PLOT_LEFT},
                                   {"Approximation", 76.0, AC_PLOT_LEFT},
                                   {"Stated error", 70.0, AC_PLOT_LEFT},
                                   {"Measured error (simulation)", 120.0, AC_PLOT_LEFT},
                                   {"State solved", CONTENT_W - 356.0, AC_PLOT_LEFT}};
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    int used[4] = {0, 0, 0, 0};
    size_t nsupp = 0;
    char text[1200];
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "How these numbers were obtained");
    table_header(d, cols, 5);
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        const ac_sim_node_result *sn =
            a->sim != NULL && i < a->sim->nnodes ? &a->sim->nodes[i] : NULL;
        char err[32], meas[160], state[160];
        const char *cells[5];
        meas[0] = state[0] = '\0';
        if (!na->analysed) {
            cells[0] = m->nodes[i].id;
            cells[1] = "not modelled";
            cells[2] = "";
            cells[3] = "";
            cells[4] = "";
            table_row(d, cols, 5, cells, i, MAX_COLS, AC_PDF_BLACK);
            continue;
        }
        if ((size_t)na->approximation < 4)
            used[na->approximation] = 1;
        fmt_pct(err, sizeof err, na->expected_rel_error);
        if (sn != NULL && sn->mean_jobs.n > 0 && sn->mean_jobs.mean > 0.0 &&
            isfinite(na->mean_jobs)) {
            size_t len = (size_t)snprintf(meas, sizeof meas, "mean jobs %+.2g%%",
                                          100.0 * (na->mean_jobs - sn->mean_jobs.mean) /
                                              sn->mean_jobs.mean);
            if (sn->mean_response_time.n > 0 && sn->mean_response_time.mean > 0.0 &&
                isfinite(na->mean_response_time) && len < sizeof meas)
                snprintf(meas + len, sizeof meas - len, "\nmean response %+.2g%%",
                         100.0 * (na->mean_response_time - sn->mean_response_time.mean) /
                             sn->mean_response_time.mean);
        } else if (a->sim == NULL) {
            snprintf(meas, sizeof meas, "not simulated");
        }
        if (na->function != NULL)
            snprintf(state, sizeof state, "throttled %.3g, cold starts %.3g",
                     na->function->throttle_probability, na->function->cold_probability);
        else if (na->queue != NULL)
            snprintf(state, sizeof state, "%zu slots, dead letters %.3g%s", na->queue->slots,
                     na->queue->dead_letter_probability,
                     na->queue->batching ? ", backlog (batching)" : "");
        else if (na->gateway != NULL)
            snprintf(state, sizeof state, "M/D/1/K, rejected %.3g%s",
                     na->gateway->reject_probability, na->gateway->bound ? " (bound)" : "");
        if (na->pool != NULL)
            snprintf(state, sizeof state, "%zu level%s, tail mass %.2g, %zu equilibri%s",
                     na->pool->truncation, na->pool->truncation == 1 ? "" : "s",
                     na->pool->tail_mass, na->pool->nequilibria,
                     na->pool->nequilibria == 1 ? "um" : "a");
        cells[0] = m->nodes[i].id;
        cells[1] = ac_solver_approx_name(na->approximation);
        cells[2] = err;
        cells[3] = meas;
        cells[4] = state;
        table_row(d, cols, 5, cells, i, MAX_COLS, AC_PDF_BLACK);
    }
    table_end(d);
    ac_pdf_doc_heading_write(d, 11.0, "The approximations");
    for (size_t k = 0; k < 4; k++)
        if (used[k])
            bullet(d, approx_explained((ac_solver_approx)k));
    if (a->e2e.available) {
        snprintf(text, sizeof text,
                 "End to end: the nodes' response-time laws are combined along the routes on a "
                 "lattice (convolution for stages in series, maximum for fan-out joins, mixture "
                 "for probabilistic routes); stated error %.2g%%.",
                 100.0 * a->e2e.expected_rel_error);
        bullet(d, text);
    }
    ac_pdf_doc_heading_write(d, 11.0, "Validation by simulation");
    if (a->sim != NULL) {
        snprintf(text, sizeof text,
                 "A discrete-event simulation of the finite design (%zu replications, %llu "
                 "events, seed %lu, horizon %.4g s, warm-up %.4g s) measured every node; the "
                 "worst relative 95%% half-width of the main quantities is %.2g%%%s. The "
                 "measured errors above compare the analytic numbers with it.",
                 a->sim->replications, a->sim->events, a->sim->seed, a->sim->horizon,
                 a->sim->warmup, 100.0 * a->sim->rel_halfwidth,
                 a->sim->converged ? "" : " (the precision target was not reached)");
        paragraph(d, text);
    } else if (a->sim_note[0] != '\0') {
        snprintf(text, sizeof text, "No simulation ran: %s.", a->sim_note);
        paragraph(d, text);
    } else {
        paragraph(d, "No simulation was needed: no check was undecided by the stated error of "
                     "its approximation (use --validate to simulate anyway).");
    }
    ac_pdf_doc_heading_write(d, 11.0, "Assumptions");
    bullet(d, "Requests arrive as Poisson streams at each source's rate (a source's scv other "
              "than 1 is used by the simulator; the analysis treats the stream as Poisson).");
    bullet(d, "Service times are exponential with the stated mean; every server of a pool is "
              "identical and serves its queue first come, first served.");
    bullet(d, "A pool's dispatcher sees the queue lengths it samples at once; timed-out work is "
              "not cancelled, and a retry is a new arrival at the same pool.");
    bullet(d, "Routes split the completed flow by their probabilities; the traffic equations are "
              "solved with the nodes' losses until the flows agree.");
    bullet(d, "Numbers are steady-state averages at the workload as written (scale 1); an "
              "autoscaled pool is analysed at its starting size.");
    ac_pdf_doc_heading_write(d, 11.0, "Suppressions");
    for (size_t s = 0; m != NULL && s < m->nsuppressions; s++) {
        const ac_suppression *sp = &m->suppressions[s];
        snprintf(text, sizeof text, "<suppress rule=\"%s\"%s%s%s> (line %u): %s", sp->rule,
                 sp->target != AC_NONE ? " target=\"" : "",
                 sp->target != AC_NONE ? m->nodes[sp->target].id : "",
                 sp->target != AC_NONE ? "\"" : "", sp->loc.line,
                 sp->reason != NULL ? sp->reason : "");
        bullet(d, text);
        nsupp++;
    }
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *g = &rf->diags->items[i];
        if (!g->suppressed)
            continue;
        snprintf(text, sizeof text, "%s at line %u%s%s suppressed (%s): %s", g->rule, g->line,
                 g->node != NULL ? ", node " : "", g->node != NULL ? g->node : "",
                 g->suppress_reason != NULL ? g->suppress_reason : "", g->message);
        bullet(d, text);
        nsupp++;
    }
    if (nsupp == 0)
        paragraph(d, "None: every finding is reported.");
    ac_pdf_doc_cjk_note(d, 11.0, "report", ", for search and copying");
}

/* ---------------------------------------------------------------- the document */

static void write_file(pdf_doc *d, const ac_report_run *run, const ac_report_file *rf,
                       const ac_report_pdf_options *opt)
{
    const ac_model *m = rf->model;
    char title[600];
    d->footer = rf->file;
    ac_pdf_doc_page_new(d);
    ac_plot_set_gray(&d->cv, 0.0, 0.4);
    ac_plot_text(&d->cv, d->cv.regular, 9.0, MARGIN_X, d->y - 9.0, AC_PLOT_LEFT,
                 "archcheck design check");
    d->y -= 14.0;
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    if (m != NULL && m->label != NULL && m->name != NULL)
        snprintf(title, sizeof title, "%s (%s)", m->label, m->name);
    else if (m != NULL && (m->label != NULL || m->name != NULL))
        snprintf(title, sizeof title, "%s", m->label != NULL ? m->label : m->name);
    else
        snprintf(title, sizeof title, "%s", rf->file);
    ac_pdf_doc_heading_write(d, 17.0, title);
    write_verdict(d, run, rf);
    write_meta(d, run, rf, opt);
    write_checks(d, rf);
    write_findings(d, rf);
    if (m == NULL || rf->analysis == NULL)
        return;
    for (size_t i = 0; i < m->nnodes; i++)
        write_node_page(d, rf, i);
    write_end_to_end(d, rf);
    ac_report_pdf_size_page(d, rf);
    write_method(d, rf);
}

/* A report of several files opens with a summary: the run's verdict (the worst), then a row
 * per file with its verdict, checks and findings, so that a FAIL on page 7 is on page 1. */
static void write_summary(pdf_doc *d, const ac_report_run *run)
{
    static const pdf_col cols[] = {{"File", CONTENT_W - 250.0, AC_PLOT_LEFT},
                                   {"Verdict", 80.0, AC_PLOT_LEFT},
                                   {"Checks (pass / fail / inconclusive)", 110.0, AC_PLOT_LEFT},
                                   {"Findings", 60.0, AC_PLOT_RIGHT}};
    ac_verdict worst = ac_report_run_verdict(run);
    const char *v = verdict_label(worst);
    rgb col = verdict_color(worst);
    double size = 40.0, w, box_h = 58.0;
    char line[200];
    size_t counts[4] = {0};
    d->footer = "summary";
    ac_pdf_doc_page_new(d);
    ac_plot_set_gray(&d->cv, 0.0, 0.4);
    ac_plot_text(&d->cv, d->cv.regular, 9.0, MARGIN_X, d->y - 9.0, AC_PLOT_LEFT,
                 "archcheck design check");
    d->y -= 14.0;
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    snprintf(line, sizeof line, "Summary of %zu files", run->nfiles);
    ac_pdf_doc_heading_write(d, 17.0, line);
    for (size_t f = 0; f < run->nfiles; f++)
        counts[run->files[f].verdict]++;
    w = ac_plot_text_width(&d->cv, d->cv.bold, size, v);
    ac_plot_set_rgb_stroke(&d->cv, col.r, col.g, col.b);
    ac_plot_set_rgb_fill(&d->cv, col.r, col.g, col.b);
    ac_plot_rect_stroke(&d->cv, MARGIN_X, d->y - box_h, w + 28.0, box_h, 2.5);
    ac_plot_text(&d->cv, d->cv.bold, size, MARGIN_X + 14.0, d->y - box_h + 16.0, AC_PLOT_LEFT, v);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    snprintf(line, sizeof line,
             "The run's verdict is its worst file's. %zu pass, %zu fail, %zu inconclusive, %zu "
             "invalid input.",
             counts[AC_VERDICT_PASS], counts[AC_VERDICT_FAIL], counts[AC_VERDICT_INCONCLUSIVE],
             counts[AC_VERDICT_INVALID]);
    ac_plot_text_wrapped(&d->cv, d->cv.regular, 9.0, MARGIN_X + w + 44.0, d->y - box_h / 2.0 + 2.0,
                         MARGIN_X + CONTENT_W - (MARGIN_X + w + 44.0), 11.5, AC_PLOT_LEFT, line);
    d->y -= box_h + 14.0;
    table_header(d, cols, 4);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        size_t pass = 0, fail = 0, inc = 0, shown = 0;
        char checks[64], findings[32];
        const char *cells[4];
        ac_report_checks_count(rf->analysis, &pass, &fail, &inc);
        for (size_t i = 0; i < rf->diags->count; i++)
            shown += !rf->diags->items[i].suppressed;
        if (rf->analysis != NULL)
            snprintf(checks, sizeof checks, "%zu / %zu / %zu", pass, fail, inc);
        else
            snprintf(checks, sizeof checks, "not analysed");
        snprintf(findings, sizeof findings, "%zu", shown);
        cells[0] = rf->file;
        cells[1] = verdict_label(rf->verdict);
        cells[2] = checks;
        cells[3] = findings;
        table_row(d, cols, 4, cells, f, 1, verdict_color(rf->verdict));
    }
    table_end(d);
}

/* Draw every file's pages (the draw callback of ac_pdf_doc_write). */
static void draw_run(pdf_doc *d, const void *ctx)
{
    const ac_report_run *run = ctx;
    if (run->nfiles > 1)
        write_summary(d, run);
    for (size_t f = 0; f < run->nfiles; f++) {
        snprintf(d->doing, sizeof d->doing, "drawing the report of '%.250s'", run->files[f].file);
        write_file(d, run, &run->files[f], &d->opt);
    }
}

int ac_report_pdf(const char *path, const ac_report_run *run, const ac_report_pdf_options *opt,
                  ac_error *err)
{
    return ac_pdf_doc_write(path, opt, "report",
                            run->nfiles == 1 ? run->files[0].file : "archcheck report", draw_run,
                            run, err);
}
