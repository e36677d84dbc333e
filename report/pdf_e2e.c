/*
 * The report's end-to-end page: the response time along the routes, its distribution and the
 * load of every node against the limits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpdf.h>

#include "archcheck/report.h"
#include "archcheck/rules.h"
#include "report/pdf_doc.h"
#include "report/pdf_report.h"
#include "report/plot.h"

typedef ac_pdf_doc pdf_doc;
typedef ac_pdf_rgb rgb;
typedef ac_pdf_col pdf_col;

void ac_pdf_e2e_page_write(pdf_doc *d, const ac_report_file *rf)
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
        ac_pdf_paragraph(d,
                         "No end-to-end numbers: the design has no open workload (sources), or its "
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
        ac_pdf_table_header(d, cols, 4);
        for (size_t k = 0, shown = 0; k < sizeof rows / sizeof rows[0]; k++) {
            char v[64], er[32], s[128];
            const char *cells[4];
            if (!rows[k].show)
                continue;
            ac_pdf_fmt_qty(v, sizeof v, rows[k].v, rows[k].unit);
            ac_pdf_fmt_pct(er, sizeof er, e->expected_rel_error);
            ac_pdf_fmt_sim(s, sizeof s, rows[k].sim, rows[k].unit);
            cells[0] = rows[k].name;
            cells[1] = v;
            cells[2] = er;
            cells[3] = s;
            ac_pdf_table_row(d, cols, 4, cells, shown++, MAX_COLS, AC_PDF_BLACK);
        }
        ac_pdf_table_end(d);
    }
    ac_pdf_doc_heading_write(d, 11.0, "Headroom");
    if (a->has_headroom) {
        ac_report_headroom_sentence(text, sizeof text, m, a);
        if (a->headroom_rel_error > 0.0) {
            char pct[32];
            size_t len = strlen(text);
            ac_pdf_fmt_pct(pct, sizeof pct, a->headroom_rel_error);
            snprintf(text + len, sizeof text - len, " The factor's expected error: %s.", pct);
        }
        ac_pdf_paragraph(d, text);
    } else {
        ac_pdf_paragraph(d, "Not computed.");
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
            ac_pdf_fmt_qty(v, sizeof v, e->p95, "s");
            snprintf(m95, sizeof m95, "p95 %s", v);
            ac_plot_add_marker(&p, e->p95, m95);
            ac_pdf_fmt_qty(v, sizeof v, e->p99, "s");
            snprintf(m99, sizeof m99, "p99 %s", v);
            ac_plot_add_marker(&p, e->p99, m99);
        }
        /* the latency limits end to end */
        for (size_t k = 0; k < a->nchecks && nl < AC_PLOT_MAX_MARKERS - 2; k++) {
            const ac_check *c = &a->checks[k];
            if (c->node != AC_NONE || !c->has_value || strcmp(c->unit, "s") != 0 ||
                strstr(c->name, "latency") == NULL || c->limit > e->grid_t[e->grid_n - 1])
                continue;
            ac_pdf_fmt_qty(v, sizeof v, c->limit, "s");
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
                limit_u =
                    isfinite(limit_u) ? fmin(limit_u, a->checks[k].limit) : a->checks[k].limit;
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
