/*
 * The page of the autoscaler tuning (`archcheck tune --report OUT.pdf`): the settings as
 * written and the best, the cost-vs-SLA front (server-hours against the binding latency
 * requirement's value, the limit dotted, the settings as written and the chosen one marked)
 * and its table, and the over-provisioning figure (the serving counts of the settings as
 * written and of the chosen one against the right-sized count at each moment of the
 * profile). Drawing never allocates; every libharu failure longjmps back to
 * ac_pdf_doc_write (report/pdf_doc.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/pdf_doc.h"

#define FRONT_COLS 5
#define FRONT_ROWS 24 /* table rows shown (the plot has every point) */

typedef struct tune_page {
    const char *file;
    const ac_model *model;
    const ac_tune_result *r;
    double fx[AC_TUNE_FRONT_MAX], fy[AC_TUNE_FRONT_MAX]; /* the front in server-hours, s */
    double mx[2], my[2], bx[1], by[1], wx[1], wy[1];
} tune_page;

static void paragraph(ac_pdf_doc *d, const char *text)
{
    ac_pdf_doc_paragraph_write(d, d->cv.regular, BODY, 0.0, text);
    d->y -= 4.0;
}

static void setting_text(char *buf, size_t n, const ac_model *m, const ac_tune_setting *s,
                         size_t npools)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < npools && len < n; k++)
        len += (size_t)snprintf(buf + len, n - len,
                                "%s%s: target %.3g, cooldown %.4g s, "
                                "interval %.4g s, %zu..%zu",
                                k ? "; " : "", m->nodes[s[k].node].id, s[k].target, s[k].cooldown,
                                s[k].interval, s[k].min, s[k].max);
}

static void summary(ac_pdf_doc *d, const tune_page *tp)
{
    const ac_tune_result *r = tp->r;
    char buf[900], set[400];
    setting_text(set, sizeof set, tp->model, r->written.pools, r->npools);
    snprintf(buf, sizeof buf,
             "%s: %zu autoscaled pool%s over the profile's %.6g s. As written (%s): %.6g "
             "server-hours, %zu scaling actions, %s.",
             tp->file, r->npools, r->npools == 1 ? "" : "s", r->horizon, set,
             r->written.server_hours, r->written.actions,
             r->written.feasible ? "every requirement met on the fluid"
                                 : "a requirement violated on the fluid");
    paragraph(d, buf);
    if (r->confirmed == AC_TUNE_NONE) {
        paragraph(d, "Best: no setting found that meets every requirement.");
        return;
    }
    setting_text(set, sizeof set, tp->model, r->best.pools, r->npools);
    snprintf(buf, sizeof buf,
             "Best (%s): %s: %.6g server-hours (%+.1f%% against as written), %zu scaling "
             "actions. %zu evaluations of the transient%s.",
             ac_tune_confirm_text(r->confirmed), set, r->best.server_hours,
             isfinite(r->saving) ? -100.0 * r->saving : NAN, r->best.actions, r->evaluations,
             r->robust ? "; robust search (no simulation fits the event budget)" : "");
    paragraph(d, buf);
}

static void front_plot(ac_pdf_doc *d, tune_page *tp)
{
    const ac_tune_result *r = tp->r;
    const ac_tune_check *ck = &r->written.checks[r->front_check];
    double box_h = 250.0, lo = INFINITY, hi = -INFINITY, top = 0.0;
    char title[160];
    ac_plot p;
    for (size_t i = 0; i < r->nfront; i++) {
        tp->fx[i] = r->front[i].cost / 3600.0;
        tp->fy[i] = r->front[i].value;
        lo = fmin(lo, tp->fx[i]);
        hi = fmax(hi, tp->fx[i]);
        top = fmax(top, tp->fy[i]);
    }
    tp->wx[0] = r->written.server_hours;
    tp->wy[0] = ck->value;
    lo = fmin(lo, tp->wx[0]);
    hi = fmax(hi, tp->wx[0]);
    tp->mx[0] = lo;
    tp->mx[1] = hi > lo ? hi : lo + 1.0;
    tp->my[0] = tp->my[1] = ck->limit;
    snprintf(title, sizeof title, "Cost against the %s (%zu non-dominated settings)", ck->what,
             r->nfront);
    ac_plot_init(&p, title, AC_PLOT_LINEAR, "server-hours over the profile", AC_PLOT_LINEAR,
                 "value (s)");
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_SOLID, tp->fx, tp->fy, r->nfront, "front");
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DOTTED, tp->mx, tp->my, 2, "limit");
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DASHDOT, tp->wx, tp->wy, 1, "as written");
    if (r->confirmed != AC_TUNE_NONE && r->front_check < r->best.nchecks) {
        tp->bx[0] = r->best.server_hours;
        tp->by[0] = r->best.checks[r->front_check].value;
        ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DASHED, tp->bx, tp->by, 1, "chosen");
    }
    p.yaxis.min = 0.0;
    p.yaxis.max = fmin(fmax(top, ck->value), 2.0 * ck->limit) * 1.05; /* far points clipped */
    p.empty_note = "no setting met every other requirement";
    ac_pdf_doc_room_ensure(d, box_h);
    ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

static void front_table(ac_pdf_doc *d, const tune_page *tp)
{
    static const double width[FRONT_COLS] = {70.0, 60.0, 45.0, 65.0, 0.0};
    static const char *const title[FRONT_COLS] = {"server-hours", "value (s)", "actions", "SLA",
                                                  "setting"};
    const ac_tune_result *r = tp->r;
    char v[FRONT_COLS][400];
    ac_pdf_cell c[FRONT_COLS];
    size_t n = r->nfront < FRONT_ROWS ? r->nfront : FRONT_ROWS;
    for (size_t i = 0; i <= n; i++) {
        double h;
        memset(c, 0, sizeof c);
        if (i > 0) {
            const ac_tune_point *pt = &r->front[i - 1];
            snprintf(v[0], sizeof v[0], "%.5g", pt->cost / 3600.0);
            snprintf(v[1], sizeof v[1], "%.4g", pt->value);
            snprintf(v[2], sizeof v[2], "%zu", pt->actions);
            const ac_tune_check *ck = &r->written.checks[r->front_check];
            snprintf(v[3], sizeof v[3], "%s",
                     !pt->met                                         ? "over"
                     : pt->value * (1.0 + ck->rel_error) <= ck->limit ? "met"
                                                                      : "within error");
            setting_text(v[4], sizeof v[4], tp->model, pt->pools, r->npools);
        }
        for (size_t k = 0; k < FRONT_COLS; k++) {
            c[k].text = i == 0 ? title[k] : v[k];
            c[k].font = i == 0 ? d->cv.bold : d->cv.regular;
            c[k].width = width[k] > 0.0 ? width[k] : CONTENT_W - 240.0;
            c[k].align = k < 4 ? AC_PLOT_RIGHT : AC_PLOT_LEFT;
        }
        h = ac_pdf_doc_row_height(d, c, FRONT_COLS);
        ac_pdf_doc_room_ensure(d, h);
        ac_pdf_doc_row_draw(d, c, FRONT_COLS, h, (int)(i % 2 == 1));
    }
    if (r->nfront > n) {
        char buf[96];
        snprintf(buf, sizeof buf, "(%zu more points in the JSON output)", r->nfront - n);
        paragraph(d, buf);
    }
    d->y -= 10.0;
}

static void provision_plot(ac_pdf_doc *d, const tune_page *tp)
{
    const ac_tune_provision *pv = &tp->r->provision;
    double box_h = 250.0;
    char title[200], buf[700];
    ac_plot p;
    ac_pdf_doc_heading_write(d, 11.0, "Over-provisioning");
    if (pv->n == 0) {
        paragraph(d, pv->note[0] ? pv->note : "Not computed (tune --moments 0).");
        return;
    }
    snprintf(buf, sizeof buf,
             "The serving count of the autoscaled pools (fluid) against the right-sized count: "
             "the least servers meeting every latency, utilisation and loss requirement at the "
             "rates of each of %zu moments (the sizing of `archcheck size`, no simulation). "
             "Right-sized %.6g server-hours; as written %.6g above it and %.6g below; "
             "chosen %.6g above and %.6g below.%s%s",
             pv->n, pv->needed_ss / 3600.0, pv->written_over / 3600.0, pv->written_under / 3600.0,
             pv->best_over / 3600.0, pv->best_under / 3600.0, pv->note[0] ? " " : "", pv->note);
    paragraph(d, buf);
    snprintf(title, sizeof title, "Servers over the profile");
    ac_plot_init(&p, title, AC_PLOT_LINEAR, "time (s)", AC_PLOT_LINEAR, "servers");
    ac_plot_add(&p, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, pv->t, pv->needed, pv->n, "right-sized");
    ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DASHDOT, pv->t, pv->written, pv->n, "as written");
    if (isfinite(pv->best_over))
        ac_plot_add(&p, AC_PLOT_KIND_LINE, AC_PLOT_DASHED, pv->t, pv->best, pv->n, "chosen");
    p.yaxis.min = 0.0;
    p.empty_note = "nothing sized";
    ac_pdf_doc_room_ensure(d, box_h);
    ac_plot_draw(&d->cv, &p, MARGIN_X, d->y - box_h, CONTENT_W, box_h);
    d->y -= box_h + 12.0;
}

static void draw_tune(ac_pdf_doc *d, const void *ctx)
{
    tune_page tp; /* a copy: the plots borrow its arrays */
    memcpy(&tp, ctx, sizeof tp);
    d->footer_kind = "tune \xC2\xB7 ";
    d->footer = tp.file;
    snprintf(d->doing, sizeof d->doing, "drawing the tune page");
    ac_pdf_doc_page_new(d);
    ac_pdf_doc_heading_write(d, 15.0, "Autoscaler tuning");
    summary(d, &tp);
    ac_pdf_doc_heading_write(d, 11.0, "Cost-vs-SLA front");
    if (tp.r->front_check == AC_NONE || tp.r->front_check >= tp.r->written.nchecks) {
        paragraph(d, "No latency requirement: no front.");
    } else {
        paragraph(d, "Every setting the search evaluated that meets every requirement but the "
                     "binding latency one on the fluid, not dominated in cost and that latency "
                     "by another: what relaxing or tightening the SLA costs. The values are the "
                     "fluid's; SLA \"met\" when the margin clears the stated error, \"within "
                     "error\" when it does not (a simulation would decide), \"over\" the "
                     "limit. The value axis stops at twice the limit.");
        front_plot(d, &tp);
        front_table(d, &tp);
    }
    ac_pdf_doc_page_new(d);
    provision_plot(d, &tp);
    ac_pdf_doc_cjk_note(d, 12.0, "tune report", "");
}

int ac_report_tune_pdf(const char *path, const char *file, const ac_model *model,
                       const ac_tune_result *r, const ac_report_pdf_options *opt, ac_error *err)
{
    tune_page tp; /* about 4 kB: the front's arrays for the plot */
    if (!(r->horizon > 0.0))
        return ac_error_set(err, AC_EINVAL, "tune report: the horizon must be positive");
    memset(&tp, 0, sizeof tp);
    tp.file = file;
    tp.model = model;
    tp.r = r;
    return ac_pdf_doc_write(path, opt, "tune report", "archcheck autoscaler tuning", draw_tune, &tp,
                            err);
}
