/*
 * The pages of the worst-case fault search (`archcheck search --report OUT.pdf`): the worst
 * case found (each fault's window drawn on the time axis of the horizon, with its value; the
 * objective's terms and the score against tau; the confirmation by simulation), then the
 * convergence (the best score after each generation of the GA against random sampling in the
 * same budget, with tau; with several seeds, their median and quartiles on one grid of
 * evaluations, search/convergence.c). Drawing never allocates; every libharu failure longjmps back
 * to ac_pdf_doc_write (report/pdf_doc.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/pdf_doc.h"

#define TERM_COLS 6
#define ROW_H     16.0
#define LABEL_W   150.0

static void paragraph(ac_pdf_doc *d, const char *text)
{
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
    d->y -= 4.0;
}

static const char *attr_unit(ac_transient_fault_attr a)
{
    return a == AC_TRANSIENT_FAULT_DELAY || a == AC_TRANSIENT_FAULT_COLD_START ? " s" : "";
}

/* The time axis of [0, H] under the windows: a rule, five ticks and their labels. */
static void time_axis(ac_pdf_doc *d, double x0, double w, double y, double horizon)
{
    char buf[32];
    ac_plot_set_gray(&d->cv, 0.0, 0.0);
    ac_plot_line(&d->cv, x0, y, x0 + w, y, 0.6);
    for (int k = 0; k <= 4; k++) {
        double x = x0 + w * k / 4.0;
        ac_plot_line(&d->cv, x, y, x, y - 3.0, 0.6);
        ac_plot_format_tick(buf, sizeof buf, horizon * k / 4.0);
        ac_plot_text(&d->cv, d->cv.regular, 7.0, x, y - 11.0, AC_PLOT_CENTER, buf);
    }
    ac_plot_text(&d->cv, d->cv.regular, 7.0, x0 + w / 2.0, y - 21.0, AC_PLOT_CENTER,
                 "time (s) over the horizon");
}

/* Each fault on one row: its label left, its window [start, end) as a bar over [0, H]. */
static void windows(ac_pdf_doc *d, const ac_report_search *s)
{
    double x0 = MARGIN_X + LABEL_W, w = CONTENT_W - LABEL_W, h = s->horizon;
    double box = ROW_H * (double)s->nfaults + 30.0;
    char buf[160];
    ac_pdf_doc_room_ensure(d, box + 20.0);
    ac_pdf_doc_heading_write(d, 11.0, "Fault windows");
    for (size_t k = 0; k < s->nfaults; k++) {
        const ac_transient_fault *f = &s->plan[k];
        double a = fmin(fmax(f->start, 0.0), h), b = isinf(f->end) ? h : fmin(f->end, h);
        double y = d->y - ROW_H * (double)(k + 1);
        snprintf(buf, sizeof buf, "%s.%s = %.4g%s", ac_search_target_id(s->model, f->target),
                 ac_search_attr_name(f->attr), f->value, attr_unit(f->attr));
        ac_plot_set_gray(&d->cv, 0.0, 0.0);
        ac_plot_text(&d->cv, d->cv.regular, 7.5, MARGIN_X, y + 4.0, AC_PLOT_LEFT, buf);
        ac_plot_set_gray(&d->cv, 0.85, 0.92);
        ac_plot_rect_fill(&d->cv, x0, y + 2.0, w, ROW_H - 4.0);
        ac_plot_set_rgb_fill(&d->cv, 0.75, 0.05, 0.05);
        if (b > a)
            ac_plot_rect_fill(&d->cv, x0 + w * a / h, y + 2.0, w * (b - a) / h, ROW_H - 4.0);
    }
    time_axis(d, x0, w, d->y - ROW_H * (double)s->nfaults - 2.0, h);
    d->y -= box + 8.0;
}

/* The objective's terms: metric, target, value, norm, share, weight. */
static void terms(ac_pdf_doc *d, const ac_report_search *s)
{
    static const double width[TERM_COLS] = {110.0, 110.0, 75.0, 75.0, 60.0, 0.0};
    static const char *const title[TERM_COLS] = {"metric", "target", "value",
                                                 "norm",   "share",  "weight"};
    const ac_faults *fs = &s->model->faults;
    char v[TERM_COLS][64];
    ac_pdf_cell c[TERM_COLS];
    ac_pdf_doc_heading_write(d, 11.0, "Objective terms");
    for (size_t i = 0; i <= s->nterms; i++) {
        double h;
        memset(c, 0, sizeof c);
        if (i > 0) {
            const ac_search_term_value *t = &s->terms[i - 1];
            int has = fs->has_objective && fs->nterms >= s->nterms;
            size_t tg = has ? fs->terms[i - 1].target : AC_NONE;
            snprintf(v[0], sizeof v[0], "%s",
                     ac_metric_name(has ? fs->terms[i - 1].metric : AC_METRIC_ERROR_RATE));
            snprintf(v[1], sizeof v[1], "%s",
                     tg != AC_NONE ? s->model->nodes[tg].id : "(end to end)");
            snprintf(v[2], sizeof v[2], "%.4g", t->metric);
            snprintf(v[3], sizeof v[3], "%.4g", t->norm);
            snprintf(v[4], sizeof v[4], "%.4g", t->score);
            snprintf(v[5], sizeof v[5], "%.4g", t->weight);
        }
        for (size_t k = 0; k < TERM_COLS; k++) {
            c[k].text = i == 0 ? title[k] : v[k];
            c[k].font = i == 0 ? d->cv.bold : d->cv.regular;
            c[k].width = width[k] > 0.0 ? width[k] : CONTENT_W - 430.0;
            c[k].align = k < 2 ? AC_PLOT_LEFT : AC_PLOT_RIGHT;
        }
        h = ac_pdf_doc_row_height(d, c, TERM_COLS);
        ac_pdf_doc_room_ensure(d, h);
        ac_pdf_doc_row_draw(d, c, TERM_COLS, h, (int)(i % 2 == 1));
    }
    d->y -= 10.0;
}

static void worst_case_page(ac_pdf_doc *d, const ac_report_search *s)
{
    char buf[600];
    size_t len;
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "Worst case found by the fault search");
    len = (size_t)snprintf(buf, sizeof buf,
                           "%s: score %.4g of 1 against tau %.4g, found by %s in %zu evaluations "
                           "on the fluid transient (horizon %.4g s).",
                           s->file, s->score, s->tau, s->method, s->evaluations, s->horizon);
    if (s->failures > 0 && len < sizeof buf)
        len += (size_t)snprintf(buf + len, sizeof buf - len,
                                " %zu plans failed to integrate and have no score: the worst "
                                "case may be among them.",
                                s->failures);
    if (s->has_confirm && len < sizeof buf)
        snprintf(buf + len, sizeof buf - len,
                 " Re-run in the simulator with the same plan: %.4g +- %.2g (%.3g%%).",
                 s->sim_score, s->sim_ci95, 100.0 * (s->sim_level > 0.0 ? s->sim_level : 0.95));
    paragraph(d, buf);
    paragraph(d, "The search is a heuristic: a plan worse than this one is not excluded.");
    windows(d, s);
    terms(d, s);
}

static void convergence_one(ac_pdf_doc *d, const ac_report_search *s)
{
    double tx[2], ty[2], box_h = 300.0, top = s->tau;
    char title[200];
    ac_plot p;
    paragraph(d, "The best score found after each generation, the genetic algorithm against "
                 "uniform random sampling of the same space with the same budget and seed "
                 "(dotted: tau), before the polish of the best. One seed: --report-seeds K draws "
                 "the median and quartiles of K seeds.");
    snprintf(title, sizeof title, "Best score per evaluation (GA %.4g, random %.4g)",
             s->ga_n > 0 ? s->ga_best[s->ga_n - 1] : NAN,
             s->random_n > 0 ? s->random_best[s->random_n - 1] : NAN);
    ac_plot_init(&p, title, AC_PLOT_LINEAR, "evaluations", AC_PLOT_LINEAR, "best score");
    ac_plot_add(&p, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, s->ga_evals, s->ga_best, s->ga_n,
                "genetic algorithm");
    ac_plot_add(&p, AC_PLOT_KIND_STEP, AC_PLOT_DASHED, s->random_evals, s->random_best, s->random_n,
                "random sampling");
    tx[0] = 0.0;
    tx[1] = (double)s->evaluations;
    ty[0] = ty[1] = s->tau;
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DOTTED, tx, ty, 2, "tau");
    for (size_t i = 0; i < s->ga_n; i++)
        top = fmax(top, s->ga_best[i]);
    for (size_t i = 0; i < s->random_n; i++)
        top = fmax(top, s->random_best[i]);
    p.yaxis.min = 0.0;
    p.yaxis.max = fmin(1.0, top * 1.1 > 0.0 ? top * 1.1 : 1.0);
    p.empty_note = "no generation was scored";
    ac_pdf_doc_room_ensure(d, box_h);
    ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

/* One chart of the seeds' statistic `q` (0: q1, 1: median, 2: q3; q < 0: q1 and q3) for
 * both methods, with tau. */
static void convergence_chart(ac_pdf_doc *d, const ac_report_search *s, const char *title, int q,
                              double box_h)
{
    const ac_search_convergence *c = s->convergence;
    double tx[2], ty[2], top = s->tau;
    ac_plot p;
    ac_plot_init(&p, title, AC_PLOT_LINEAR, "evaluations", AC_PLOT_LINEAR, "best score");
    if (q >= 0) {
        ac_plot_add(&p, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, c->evals, c->best[0][q],
                    AC_SEARCH_CONVERGENCE_POINTS, "genetic algorithm, median");
        ac_plot_add(&p, AC_PLOT_KIND_STEP, AC_PLOT_DASHED, c->evals, c->best[1][q],
                    AC_SEARCH_CONVERGENCE_POINTS, "random sampling, median");
    } else {
        for (int m = 0; m < 2; m++)
            for (int k = 0; k < 3; k += 2)
                ac_plot_add(&p, AC_PLOT_KIND_STEP, m == 0 ? AC_PLOT_SOLID : AC_PLOT_DASHED,
                            c->evals, c->best[m][k], AC_SEARCH_CONVERGENCE_POINTS,
                            k == 2 ? NULL
                                   : (m == 0 ? "genetic algorithm, quartiles"
                                             : "random sampling, quartiles"));
    }
    tx[0] = 0.0;
    tx[1] = (double)c->budget;
    ty[0] = ty[1] = s->tau;
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DOTTED, tx, ty, 2, "tau");
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < AC_SEARCH_CONVERGENCE_POINTS; i++)
                if (isfinite(c->best[m][k][i]))
                    top = fmax(top, c->best[m][k][i]);
    p.yaxis.min = 0.0;
    p.yaxis.max = fmin(1.0, top * 1.1 > 0.0 ? top * 1.1 : 1.0);
    p.empty_note = "no generation was scored";
    ac_pdf_doc_room_ensure(d, box_h);
    ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

/* Several seeds: the median, then the quartiles, and the figures in words. */
static void convergence_seeds(ac_pdf_doc *d, const ac_report_search *s)
{
    const ac_search_convergence *c = s->convergence;
    static const char *const name[2] = {"genetic algorithm", "random sampling"};
    char buf[600];
    snprintf(buf, sizeof buf,
             "The best score found by each number of evaluations, the genetic algorithm against "
             "uniform random sampling of the same space, %zu seeds each (%lu to %lu, every one "
             "counted), %zu evaluations per run, before the polish of the best (dotted: tau). "
             "Above: the median over the seeds; below: their quartiles (the spread).",
             c->nseeds, c->seed, c->seed + (unsigned long)c->nseeds - 1, c->budget);
    paragraph(d, buf);
    for (int m = 0; m < 2; m++) {
        char reach[96];
        if (isnan(c->reach99[m]))
            snprintf(reach, sizeof reach, "fewer than half of the seeds reached 99%% of it (%zu)",
                     c->reached99[m]);
        else
            snprintf(reach, sizeof reach,
                     "%zu of %zu seeds reached 99%% of it, median %.0f "
                     "evaluations",
                     c->reached99[m], c->nseeds, c->reach99[m]);
        snprintf(buf, sizeof buf,
                 "%s: final best median %.4g (quartiles %.4g to %.4g); best of all runs %.4g: %s.",
                 name[m], c->final[m][1], c->final[m][0], c->final[m][2], c->top, reach);
        paragraph(d, buf);
    }
    convergence_chart(d, s, "Best score per evaluation: median over the seeds", 1, 250.0);
    convergence_chart(d, s, "Best score per evaluation: quartiles over the seeds", -1, 250.0);
}

static void convergence_page(ac_pdf_doc *d, const ac_report_search *s)
{
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "Convergence");
    if (s->convergence != NULL && s->convergence->nseeds > 1)
        convergence_seeds(d, s);
    else
        convergence_one(d, s);
}

static void draw_search(ac_pdf_doc *d, const void *ctx)
{
    const ac_report_search *s = ctx;
    d->footer_kind = "search \xC2\xB7 ";
    d->footer = s->file;
    snprintf(d->doing, sizeof d->doing, "drawing the search pages");
    worst_case_page(d, s);
    convergence_page(d, s);
    ac_pdf_doc_cjk_note(d, 12.0, "search report", "");
}

int ac_report_search_pdf(const char *path, const ac_report_search *search,
                         const ac_report_pdf_options *opt, ac_error *err)
{
    if (!(search->horizon > 0.0))
        return ac_error_set(err, AC_EINVAL, "search report: the horizon must be positive");
    return ac_pdf_doc_write(path, opt, "search report", "archcheck worst-case search", draw_search,
                            search, err);
}
