/*
 * The sizing page of the PDF report (`archcheck size --report`, `check --size --report`):
 * the table of counts (as written, needed at the load and with the required headroom, the
 * binding requirement), the total saved or missing, and with --dispatch the comparison table
 * and a bar chart of the servers each dispatcher needs. Drawing never allocates; every
 * libharu failure longjmps back to ac_pdf_doc_write (report/pdf_doc.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/pdf_doc.h"

#define SIZE_COLS 6
#define MAX_BARS  16

typedef struct scol {
    const char *title;
    double width;
    ac_plot_align align;
} scol;

static void row(ac_pdf_doc *d, const scol *cols, size_t n, const char *const *texts, int bold,
                int shade)
{
    ac_pdf_cell cells[SIZE_COLS];
    double h;
    memset(cells, 0, sizeof cells);
    for (size_t i = 0; i < n; i++) {
        cells[i].text = texts[i];
        cells[i].font = bold ? d->cv.bold : d->cv.regular;
        cells[i].width = cols[i].width;
        cells[i].align = cols[i].align;
    }
    h = ac_pdf_doc_row_height(d, cells, n);
    ac_pdf_doc_room_ensure(d, h);
    ac_pdf_doc_row_draw(d, cells, n, h, shade);
}

static void header(ac_pdf_doc *d, const scol *cols, size_t n)
{
    const char *t[SIZE_COLS];
    for (size_t i = 0; i < n; i++)
        t[i] = cols[i].title;
    ac_pdf_doc_room_ensure(d, 40.0);
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, MARGIN_X, d->y, MARGIN_X + CONTENT_W, d->y, 0.8);
    row(d, cols, n, t, 1, 0);
}

static void answer_cell(char *buf, size_t n, const ac_size_answer *a)
{
    if (a->status == AC_SIZE_OK)
        snprintf(buf, n, "%zu%s", a->needed, a->simulated ? " (simulated)" : "");
    else if (a->status == AC_SIZE_UNCERTAIN && a->needed_hi == AC_UNBOUNDED)
        snprintf(buf, n, "%zu (at least %zu, uncertain)", a->needed, a->needed_lo);
    else if (a->status == AC_SIZE_UNCERTAIN)
        snprintf(buf, n, "%zu (%zu\xE2\x80\x93%zu, uncertain)", a->needed, a->needed_lo,
                 a->needed_hi);
    else
        snprintf(buf, n, "%s", ac_size_status_name(a->status));
}

static void write_counts(ac_pdf_doc *d, const ac_report_file *rf)
{
    static const scol cols[SIZE_COLS] = {
        {"node", 90.0, AC_PLOT_LEFT},           {"count", 70.0, AC_PLOT_LEFT},
        {"designed", 50.0, AC_PLOT_RIGHT},      {"needed", 80.0, AC_PLOT_RIGHT},
        {"with headroom", 80.0, AC_PLOT_RIGHT}, {"binding", CONTENT_W - 370.0, AC_PLOT_LEFT}};
    const ac_sizing *z = rf->sizing;
    const ac_model *m = rf->model;
    char buf[400];
    for (size_t j = 0; j < z->nnodes; j++) {
        const ac_size_node *r = &z->nodes[j];
        const ac_size_answer *b = r->at_headroom.binding[0] ? &r->at_headroom : &r->at_load;
        char des[32], load[64], head[64], bind[160];
        const char *t[SIZE_COLS];
        if (j == 0)
            header(d, cols, SIZE_COLS);
        snprintf(des, sizeof des, "%zu", r->designed);
        answer_cell(load, sizeof load, &r->at_load);
        answer_cell(head, sizeof head, &r->at_headroom);
        if (b->binding_node != AC_NONE && b->binding_node < m->nnodes)
            snprintf(bind, sizeof bind, "%s at '%s'", b->binding, m->nodes[b->binding_node].id);
        else if (b->binding[0] && strcmp(b->binding, "nothing") != 0 &&
                 strcmp(b->binding, "stability") != 0)
            snprintf(bind, sizeof bind, "%s end to end", b->binding);
        else
            snprintf(bind, sizeof bind, "%s", b->binding[0] ? b->binding : "\xE2\x80\x94");
        if (b->assumes[0] != '\0') {
            size_t l = strlen(bind);
            snprintf(bind + l, sizeof bind - l, " (as if %s held: undecided at every count)",
                     b->assumes);
        }
        t[0] = m->nodes[r->node].id;
        t[1] = r->what;
        t[2] = des;
        t[3] = load;
        t[4] = head;
        t[5] = bind;
        row(d, cols, SIZE_COLS, t, 0, (int)(j % 2));
    }
    d->y -= 10.0;
    if (z->nnodes == 0)
        snprintf(buf, sizeof buf, "Nothing was sized: %s.", z->note[0] ? z->note : "no node");
    else
        snprintf(buf, sizeof buf,
                 "In all, %lld %s than the design as written, with the required headroom "
                 "(%.4g times the workload). %s Work: %zu solves, %zu simulated analyses.",
                 z->saved >= 0 ? z->saved : -z->saved,
                 z->saved >= 0 ? "fewer" : "missing: more are needed", z->headroom_factor,
                 z->complete ? "Every count is settled."
                             : "Some counts are uncertain (the range the stated errors allow) "
                               "or were not found.",
                 z->probes, z->simulations);
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, buf);
}

/* A bar's name that fits its slot (eight bars across the page: the table above has the full
 * names): "random", "po2 dist", "po2 repl", ..., "jsq", "jiq", "shared". */
static void bar_name(char *out, size_t size, const ac_dispatch_row *r)
{
    if (r->dispatch == AC_DISPATCH_POWER_OF_D)
        snprintf(out, size, "po%zu %s", r->d,
                 r->sampling == AC_SAMPLING_WITH_REPLACEMENT ? "repl" : "dist");
    else if (r->dispatch == AC_DISPATCH_SHARED_QUEUE)
        snprintf(out, size, "shared");
    else
        snprintf(out, size, "%.15s", r->name);
}

static void write_dispatch(ac_pdf_doc *d, const ac_report_file *rf)
{
    static const scol cols[SIZE_COLS] = {{"dispatch", 110.0, AC_PLOT_LEFT},
                                         {"mean", 60.0, AC_PLOT_RIGHT},
                                         {"p95", 60.0, AC_PLOT_RIGHT},
                                         {"p99", 60.0, AC_PLOT_RIGHT},
                                         {"approximation", 80.0, AC_PLOT_LEFT},
                                         {"servers needed", CONTENT_W - 370.0, AC_PLOT_RIGHT}};
    const char *names[MAX_BARS];
    char shorts[MAX_BARS][16];
    double x[MAX_BARS], h[MAX_BARS], top = 0.0;
    size_t nb = 0;
    char title[200];
    ac_plot p;
    snprintf(title, sizeof title, "Dispatch comparison of pool '%s'",
             rf->model->nodes[rf->dispatch_node].id);
    ac_pdf_doc_heading_write(d, 12.0, title);
    header(d, cols, SIZE_COLS);
    for (size_t i = 0; i < rf->ndispatch; i++) {
        const ac_dispatch_row *r = &rf->dispatch[i];
        char mean[32], p95[32], p99[32], need[64];
        const char *t[SIZE_COLS];
        ac_report_seconds_format(mean, sizeof mean, r->mean);
        ac_report_seconds_format(p95, sizeof p95, r->p95);
        ac_report_seconds_format(p99, sizeof p99, r->p99);
        answer_cell(need, sizeof need, &r->needed);
        t[0] = r->name;
        t[1] = mean;
        t[2] = p95;
        t[3] = p99;
        t[4] = r->approximation;
        t[5] = need;
        row(d, cols, SIZE_COLS, t, 0, (int)(i % 2));
        if (nb < MAX_BARS) {
            bar_name(shorts[nb], sizeof shorts[nb], r);
            names[nb] = shorts[nb];
            x[nb] = (double)nb;
            h[nb] = r->needed.status == AC_SIZE_OK || r->needed.status == AC_SIZE_UNCERTAIN
                        ? (double)r->needed.needed
                        : NAN;
            if (isfinite(h[nb]))
                top = fmax(top, h[nb]);
            nb++;
        }
    }
    d->y -= 10.0;
    if (!(top > 0.0))
        return;
    ac_pdf_doc_room_ensure(d, 220.0);
    ac_plot_init(&p, "Servers needed for the same requirements (dotted: as written)",
                 AC_PLOT_LINEAR, NULL, AC_PLOT_LINEAR, "servers");
    p.xaxis.categories = names;
    p.xaxis.ncategories = nb;
    p.yaxis.min = 0.0;
    p.yaxis.max = fmax(top, (double)rf->model->nodes[rf->dispatch_node].u.pool.servers) * 1.15;
    ac_pdf_doc_bars_draw(d, &p, x, h, nb,
                         (double)rf->model->nodes[rf->dispatch_node].u.pool.servers, 200.0);
}

void ac_report_pdf_size_page(ac_pdf_doc *d, const ac_report_file *rf)
{
    if (rf->sizing == NULL || rf->model == NULL)
        return;
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "Capacity: the smallest counts meeting the requirements");
    ac_pdf_doc_paragraph_write(
        d, d->cv.regular, BODY, 0.0,
        "For each pool (servers), function (concurrency) and queue (consumers), the smallest "
        "count at which stability and every latency, utilisation and loss requirement hold, "
        "by bisection on the count with the accurate solver, at the workload as written and "
        "at the workload times the required headroom. Where the answer lies within a "
        "stated error of a limit, the full analysis with simulation settles it, or the range "
        "is given. Nodes are sized in the file's order, each with the ones before it at their "
        "minimum.");
    d->y -= 6.0;
    write_counts(d, rf);
    if (rf->dispatch != NULL)
        write_dispatch(d, rf);
}
