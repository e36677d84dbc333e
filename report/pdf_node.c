/*
 * The report's node pages: what the node is, its steady state against the simulation, a pool's
 * equilibria (stability, eigenvalues, Lyapunov) and its queue-length and response-time plots.
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
                 f->concurrency, 1e3 * f->duration, 1e3 * f->cold_start, f->keep_alive, f->timeout,
                 f->retries, f->provisioned > 0 ? ", provisioned" : "");
        return;
    }
    if (node->kind == AC_NODE_QUEUE) {
        const ac_queue *q = &node->u.queue;
        snprintf(buf, n,
                 "queue (batch %zu, max-consumers %zu, visibility %.4g s, max-receives %zu)",
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
            ac_pdf_fmt_qty(a, sizeof a, p->timeout, "s");
            snprintf(timeout, sizeof timeout, ", timeout %s, %zu retr%s", a, p->retries,
                     p->retries == 1 ? "y" : "ies");
        } else {
            timeout[0] = '\0';
        }
        ac_pdf_fmt_qty(b, sizeof b, p->service_rate, "/s");
        snprintf(buf, n, "pool: %zu server%s at %s each, %s, %s%s%s", p->servers,
                 p->servers == 1 ? "" : "s", b, disp, buffer, timeout,
                 p->has_autoscale ? ", autoscaled (analysed at its starting size)" : "");
    }
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
        {"loss probability", na->loss_probability, "",
         sn != NULL ? &sn->failure_probability : NULL},
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
    ac_pdf_table_header(d, cols, 6);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char v[64], e[32], s[128], m[32];
        const char *cells[6];
        ac_pdf_fmt_qty(v, sizeof v, rows[k].v, rows[k].unit);
        ac_pdf_fmt_pct(e, sizeof e, na->expected_rel_error);
        ac_pdf_fmt_sim(s, sizeof s, rows[k].sim, rows[k].unit);
        m[0] = '\0';
        if (rows[k].sim != NULL && rows[k].sim->n > 0 && isfinite(rows[k].v) &&
            rows[k].sim->mean > 0.0 && isfinite(rows[k].sim->mean))
            snprintf(m, sizeof m, "%+.2g%%",
                     100.0 * (rows[k].v - rows[k].sim->mean) / rows[k].sim->mean);
        cells[0] = rows[k].name;
        cells[1] = v;
        cells[2] = ac_solver_approx_name(na->approximation);
        cells[3] = e;
        cells[4] = s;
        cells[5] = m;
        ac_pdf_table_row(d, cols, 6, cells, k, MAX_COLS, AC_PDF_BLACK);
    }
    ac_pdf_table_end(d);
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
    ac_pdf_table_header(d, cols, 8);
    for (size_t e = 0; e < r->nequilibria; e++) {
        const ac_solver_equilibrium *eq = &r->equilibria[e];
        const ac_solver_kpi *k = eq->has_refined ? &eq->refined : &eq->mean_field;
        char idx[24], stab[64], from[96], jobs[64], resp[48], to[32], eig[96], lya[96], t[48];
        const char *cells[8];
        snprintf(idx, sizeof idx, "%zu", e);
        snprintf(stab, sizeof stab, "%s%s", eq->stable ? "stable" : "UNSTABLE",
                 e == r->operating            ? "\n(operating)"
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
            snprintf(jobs, sizeof jobs, "%.4g \xC2\xB1 %.2g (std)", k->mean_jobs,
                     eq->mean_jobs_std);
        else
            snprintf(jobs, sizeof jobs, "%.4g", k->mean_jobs);
        ac_pdf_fmt_qty(resp, sizeof resp, k->mean_response_time, "s");
        ac_pdf_fmt_num(to, sizeof to, k->timeout_fraction);
        ac_pdf_fmt_qty(t, sizeof t, eq->relaxation_time, "s");
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
        ac_pdf_table_row(d, cols, 8, cells, e, 1, eq->stable ? AC_PDF_PASS : AC_PDF_FAIL);
    }
    ac_pdf_table_end(d);
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

/* The two plots of a node and their curves, kept until they are drawn (a plot holds pointers
 * into the arrays and labels). */
typedef struct node_plots {
    ac_plot qp, tp; /* queue length (or busy instances); response time */
    double qx[QLEN_POINTS + 1], qy[3][QLEN_POINTS + 1];
    double tx[CCDF_POINTS], ty[3][CCDF_POINTS];
    char qlabels[3][64], tlabels[3][96], m95[64], m99[64];
} node_plots;

static const ac_plot_style styles[] = {AC_PLOT_SOLID, AC_PLOT_DASHED, AC_PLOT_DOTTED};

/* The equilibria a pool's plots draw (the operating one first, then the other stable ones, at
 * most 3) into eqs, with their labels; returns how many, and sets *tmax to the largest finite
 * p99 among them (the time axis fits every curve drawn). */
static size_t pool_equilibria(node_plots *pl, const ac_solver_pool_result *r, size_t *eqs,
                              double *tmax)
{
    size_t neq = 0;
    char v[48];
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
            *tmax = fmax(*tmax, k->p99);
        snprintf(pl->qlabels[j], sizeof pl->qlabels[j], "%s equilibrium %zu",
                 eqs[j] == r->operating            ? "operating"
                 : r->bistable && eqs[j] == r->bad ? "bad"
                                                   : "stable",
                 eqs[j]);
        if (j > 0 && isfinite(k->p99)) {
            ac_pdf_fmt_qty(v, sizeof v, k->p99, "s");
            snprintf(pl->tlabels[j], sizeof pl->tlabels[j], "%s (p99 %s)", pl->qlabels[j], v);
        } else {
            snprintf(pl->tlabels[j], sizeof pl->tlabels[j], "%s", pl->qlabels[j]);
        }
    }
    return neq;
}

/* A shared-queue pool's one curve: the exact M/M/N tail of the jobs in the pool, when it has
 * no timeouts or retries and fits in the points. */
static void shared_queue_curve(node_plots *pl, const ac_pool *pool, const ac_solver_pool_result *r)
{
    size_t n = 0;
    pl->qp.title = "Jobs in the pool: P(jobs \xE2\x89\xA5 k)";
    pl->qp.xaxis.label = "k (jobs in the pool, M/M/N exact)";
    if (pool->timeout <= 0.0 && pool->retries == 0)
        n = shared_queue_tail(r, pl->qx, pl->qy[0], QLEN_POINTS);
    if (n > 0)
        ac_plot_add(&pl->qp, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, pl->qx, pl->qy[0], n, NULL);
    else
        pl->qp.empty_note = pool->timeout > 0.0
                                ? "with timeouts the shared queue is solved as a fluid model: "
                                  "no queue-length distribution"
                                : "the distribution needs more than 400 levels: not drawn";
}

/* A pool's curves: q_k and P(T > t) at each equilibrium drawn (M/M/N's jobs in the pool for a
 * shared queue). */
static void pool_curves(node_plots *pl, const ac_pool *pool, const ac_node_analysis *na)
{
    const ac_solver_pool_result *r = na->pool;
    size_t eqs[3], neq;
    double tmax = 0.0;
    neq = pool_equilibria(pl, r, eqs, &tmax);
    if (isfinite(na->p99))
        tmax = fmax(tmax, na->p99);
    if (!(tmax > 1e-9)) /* a quantile at an atom (0): the service time sets the scale */
        tmax = 1.0 / r->service_rate;
    tmax *= 1.3;
    for (size_t s = 0; s < CCDF_POINTS; s++)
        pl->tx[s] = tmax * (double)s / (double)(CCDF_POINTS - 1);
    if (r->dispatch == AC_DISPATCH_SHARED_QUEUE)
        shared_queue_curve(pl, pool, r);
    for (size_t j = 0; j < neq; j++) {
        const ac_solver_equilibrium *eq = &r->equilibria[eqs[j]];
        size_t n = 0;
        if (r->dispatch != AC_DISPATCH_SHARED_QUEUE) {
            pl->qx[0] = 0.0;
            pl->qy[j][0] = 1.0;
            for (n = 1; n <= eq->dim && n <= QLEN_POINTS; n++) {
                pl->qx[n] = (double)n;
                pl->qy[j][n] = eq->q[n - 1];
                if (eq->q[n - 1] < 1e-12) {
                    n++;
                    break;
                }
            }
            ac_plot_add(&pl->qp, AC_PLOT_KIND_STEP, styles[j], pl->qx, pl->qy[j], n,
                        pl->qlabels[j]);
        }
        for (size_t s = 0; s < CCDF_POINTS; s++)
            pl->ty[j][s] = ac_solver_pool_ccdf(r, eqs[j], pl->tx[s]);
        ac_plot_add(&pl->tp, AC_PLOT_KIND_LINE, styles[j], pl->tx, pl->ty[j], CCDF_POINTS,
                    pl->tlabels[j]);
    }
}

/* The busy count of a sync function, a loss system: Poisson(load) truncated at C, its tail
 * P(busy >= k) by a suffix sum, drawn at up to QLEN_POINTS values of k. */
static void function_busy_curve(node_plots *pl, const ac_solver_function_result *f)
{
    size_t C = f->concurrency, step = C / QLEN_POINTS + 1, n = 0;
    double logA = log(f->load), tot = 0.0, tail = 0.0;
    for (size_t k = 0; k <= C; k++)
        tot += exp((double)k * logA - lgamma((double)k + 1.0) - f->load);
    pl->qp.title = "Busy instances: P(busy \xE2\x89\xA5 k)";
    pl->qp.xaxis.label = "k (busy instances, Erlang loss law)";
    pl->qp.yaxis.label = "P(busy \xE2\x89\xA5 k)";
    pl->qp.empty_note = NULL;
    for (size_t k = C + 1; k-- > 0;) {
        tail += exp((double)k * logA - lgamma((double)k + 1.0) - f->load);
        if (k % step == 0 && tot > 0.0 && k / step <= QLEN_POINTS) {
            pl->qx[k / step] = (double)k;
            pl->qy[0][k / step] = tail / tot;
            n = n > k / step + 1 ? n : k / step + 1;
        }
    }
    while (n > 1 && pl->qy[0][n - 2] < 1e-12)
        n--; /* drop the far tail */
    ac_plot_add(&pl->qp, AC_PLOT_KIND_STEP, AC_PLOT_SOLID, pl->qx, pl->qy[0], n, NULL);
}

/* A function's or a queue's curves: the time at the node, and a sync function's busy
 * instances. */
static void function_curves(node_plots *pl, const ac_node_analysis *na)
{
    const ac_solver_function_result *f = na->function;
    double tmax, top = 0.0;
    pl->tp.title =
        na->queue != NULL ? "Time in the queue: P(W > t)" : "Time at the function: P(T > t)";
    pl->tp.empty_note = NULL;
    tmax = (isfinite(na->p99) && na->p99 > 1e-9 ? na->p99 : na->mean_response_time) * 1.3;
    if (!(tmax > 1e-9)) /* the time is 0 with probability near 1 (an atom): 1 ms shows it */
        tmax = 1e-3;
    for (size_t s = 0; s < CCDF_POINTS; s++) {
        pl->tx[s] = tmax * (double)s / (double)(CCDF_POINTS - 1);
        pl->ty[0][s] = ac_node_analysis_ccdf(na, pl->tx[s]);
        if (s > 0 && isfinite(pl->ty[0][s]))
            top = fmax(top, pl->ty[0][s]);
    }
    if (top >= pl->tp.yaxis.min) /* else the curve lies under the axis: nothing to see */
        ac_plot_add(&pl->tp, AC_PLOT_KIND_LINE, AC_PLOT_SOLID, pl->tx, pl->ty[0], CCDF_POINTS,
                    NULL);
    else
        pl->tp.empty_note = "the time is 0 but with a probability under 0.0001";
    if (f != NULL && f->mode == AC_SOLVER_FN_SYNC && f->concurrency > 0 && f->load > 0.0)
        function_busy_curve(pl, f);
    else
        pl->qp.empty_note = na->queue != NULL ? "a queue: its consumers are on the function's page"
                                              : "no instance-count law for this invocation type";
}

/* The two plots of a node set up empty, each with the note that says why when it stays so. */
static void node_plots_init(node_plots *pl, const ac_node_analysis *na)
{
    ac_plot_init(&pl->qp, "Queue length: P(jobs \xE2\x89\xA5 k) = q\xE2\x82\x96", AC_PLOT_LINEAR,
                 "k (jobs at a server)", AC_PLOT_LOG10, "P(jobs \xE2\x89\xA5 k)");
    ac_plot_init(&pl->tp, "Response time: P(T > t)", AC_PLOT_LINEAR, "t (s)", AC_PLOT_LOG10,
                 "P(T > t)");
    pl->tp.yaxis.min = 1e-4;
    pl->tp.yaxis.max = 1.0;
    pl->qp.xaxis.integer = 1;
    if (na->pool != NULL) {
        pl->qp.empty_note = na->overload
                                ? "no distribution: the pool is overloaded (no steady state)"
                                : "no distribution: the pool has no equilibrium";
        pl->tp.empty_note = pl->qp.empty_note;
    } else {
        pl->qp.empty_note = na->gateway != NULL ? "a gateway admits or rejects at once: no queue"
                                                : "no distribution for this node";
        pl->tp.empty_note = na->gateway != NULL ? "admission takes no time: no response-time law"
                                                : "no response-time law for this node";
    }
}

static void write_node_plots(pdf_doc *d, const ac_model *m, const ac_analysis *a, size_t i)
{
    const ac_node_analysis *na = &a->nodes[i];
    node_plots pl;
    char v[48];
    double box_w = (CONTENT_W - 14.0) / 2.0, box_h = 232.0;
    node_plots_init(&pl, na);
    if (na->pool != NULL && !na->overload)
        pool_curves(&pl, &m->nodes[i].u.pool, na);
    if (na->pool == NULL && ac_node_analysis_has_law(na) && na->gateway == NULL)
        function_curves(&pl, na);
    if (isfinite(na->p95) && na->p95 > 0.0) {
        ac_pdf_fmt_qty(v, sizeof v, na->p95, "s");
        snprintf(pl.m95, sizeof pl.m95, "p95 %s", v);
        ac_plot_add_marker(&pl.tp, na->p95, pl.m95);
    }
    if (isfinite(na->p99) && na->p99 > 0.0) {
        ac_pdf_fmt_qty(v, sizeof v, na->p99, "s");
        snprintf(pl.m99, sizeof pl.m99, "p99 %s", v);
        ac_plot_add_marker(&pl.tp, na->p99, pl.m99);
    }
    if (pl.qp.nseries == 0 && pl.tp.nseries == 0) { /* no empty axes: say why in a line */
        char why[300];
        snprintf(why, sizeof why, "No plots: %s; %s.",
                 pl.qp.empty_note != NULL ? pl.qp.empty_note : "",
                 pl.tp.empty_note != NULL ? pl.tp.empty_note : "");
        ac_pdf_paragraph(d, why);
        return;
    }
    ac_pdf_doc_room_ensure(d, box_h + 6.0);
    ac_plot_draw(&d->cv, &pl.qp, MARGIN_X, d->y - box_h, box_w, box_h);
    ac_plot_draw(&d->cv, &pl.tp, MARGIN_X + box_w + 14.0, d->y - box_h, box_w, box_h);
    d->y -= box_h + 12.0;
}

void ac_pdf_node_page_write(pdf_doc *d, const ac_report_file *rf, size_t i)
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
    ac_pdf_paragraph(d, desc);
    if (!na->analysed) {
        snprintf(text, sizeof text,
                 "Not analysed (archcheck %s): the AC900 finding on this %s says why; its "
                 "checks are inconclusive.",
                 AC_VERSION, ac_node_kind_name(node->kind));
        ac_pdf_paragraph(d, text);
        return;
    }
    if (na->overload) {
        ac_pdf_paragraph(
            d, "Overloaded: the offered load is at least the capacity and the buffer is "
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
        ac_pdf_paragraph(d, text);
        write_equilibria(d, r);
        if (r->bistable) {
            if (isfinite(r->smallest_burst.duration)) {
                char dur[48];
                ac_pdf_fmt_qty(dur, sizeof dur, r->smallest_burst.duration, "s");
                snprintf(text, sizeof text,
                         "The smallest burst found that tips the pool into the bad equilibrium: "
                         "%.4g extra jobs/s for %s (%.4g jobs).",
                         r->smallest_burst.extra_rate, dur, r->smallest_burst.jobs);
            } else {
                snprintf(text, sizeof text, "No burst tried tipped the pool (%zu tried).",
                         r->nbursts);
            }
            ac_pdf_paragraph(d, text);
        }
        if (na->basin_checked) {
            snprintf(text, sizeof text,
                     "Simulated with %zu servers: started empty it holds %.4g \xC2\xB1 %.2g jobs "
                     "per server (%s); started in the bad state, %.4g \xC2\xB1 %.2g (%s).",
                     r->servers, na->basin_good.mean, na->basin_good.ci95,
                     na->stays_good ? "stays good" : "leaves the good state", na->basin_bad.mean,
                     na->basin_bad.ci95,
                     na->stays_bad ? "stays bad: the failure mode is real" : "recovers");
            ac_pdf_paragraph(d, text);
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
