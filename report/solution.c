/*
 * The solution in human-readable text and as CSV (archcheck solve).
 */
#include <math.h>
#include <string.h>

#include "archcheck/report.h"
#include "report/internal.h"

static void fmt_time(FILE *fp, double s)
{
    if (!isfinite(s))
        fputs("      -   ", fp);
    else if (s == 0.0)
        fputs("       0  ", fp);
    else if (s < 1e-6)
        fprintf(fp, "%9.2es", s); /* below a microsecond: not worth a unit of its own */
    else if (s < 1e-3)
        fprintf(fp, "%8.2fus", s * 1e6);
    else if (s < 1.0)
        fprintf(fp, "%8.3fms", s * 1e3);
    else
        fprintf(fp, "%8.4fs ", s);
}

int ac_report_solution_text(FILE *fp, const ac_report_file *rf)
{
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    if (m == NULL || a == NULL)
        return AC_EINVAL;
    fprintf(fp, "%s: %zu node%s\n\n", rf->file, m->nnodes, m->nnodes == 1 ? "" : "s");
    fprintf(fp, "%-16s %-12s %10s %10s %8s %10s %10s %10s %10s %10s  %s\n", "node", "kind",
            "arrival/s", "through/s", "util", "loss", "jobs/srv", "mean", "p95", "p99",
            "approximation");
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        fprintf(fp, "%-16.16s %-12s %10.4g ", m->nodes[i].id, ac_node_kind_name(m->nodes[i].kind),
                na->arrival_rate);
        if (!na->analysed) {
            fputs("(not analysed)\n", fp);
            continue;
        }
        if (na->overload) {
            fprintf(fp, "%10.4g %8s (overloaded: the queues grow without bound)\n", na->throughput,
                    ">= 1");
            continue;
        }
        fprintf(fp, "%10.4g %8.4f %10.3g %10.4g ", na->throughput, na->utilization,
                na->loss_probability, na->mean_jobs);
        fmt_time(fp, na->mean_response_time);
        fputc(' ', fp);
        fmt_time(fp, na->p95);
        fputc(' ', fp);
        fmt_time(fp, na->p99);
        fprintf(fp, "  %s", ac_node_analysis_approximation(na));
        if (na->expected_rel_error > 0.0)
            fprintf(fp, " (+-%.2g%%)", 100.0 * na->expected_rel_error);
        if (na->loss_abs_error > 0.0)
            fprintf(fp, " (loss +-%.2g)", na->loss_abs_error);
        fputc('\n', fp);
    }
    fputc('\n', fp);
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_solver_pool_result *r = a->nodes[i].pool;
        if (r == NULL || a->nodes[i].overload)
            continue;
        fprintf(fp, "%s: load %.4g, %zu level%s solved (tail %.2g), %zu equilibri%s%s\n",
                m->nodes[i].id, r->load, r->truncation, r->truncation == 1 ? "" : "s", r->tail_mass,
                r->nequilibria, r->nequilibria == 1 ? "um" : "a",
                r->bistable ? " (METASTABLE)" : "");
        for (size_t e = 0; e < r->nequilibria; e++) {
            /* one quantity, one number: each equilibrium in the headline's approximation
               (refined only where the headline is), and its name beside it */
            const ac_solver_equilibrium *eq = &r->equilibria[e];
            const ac_solver_kpi *k =
                eq->has_refined && r->kpi.approximation == AC_SOLVER_APPROX_REFINED
                    ? &eq->refined
                    : &eq->mean_field;
            char resp[32];
            snprintf(resp, sizeof resp, "%.4gs", k->mean_response_time);
            fprintf(fp,
                    "  #%zu %-8s jobs/server %-10.5g mean response %-10s (%s) slowest "
                    "eigenvalue %.4g/s (relaxation %.4gs)%s%s\n",
                    e, eq->stable ? "stable" : "UNSTABLE", k->mean_jobs, resp,
                    ac_solver_approx_name(k->approximation), eq->max_real_eigenvalue,
                    eq->relaxation_time,
                    eq->lyapunov_solved ? (eq->lyapunov_pd ? ", Lyapunov: positive definite"
                                                           : ", Lyapunov: not positive definite")
                                        : "",
                    e == r->operating ? ", operating" : "");
        }
        if (r->bistable && isfinite(r->smallest_burst.duration))
            fprintf(fp, "  smallest burst into the bad state: +%.6g jobs/s for %.4gs (%.6g jobs)\n",
                    r->smallest_burst.extra_rate, r->smallest_burst.duration,
                    r->smallest_burst.jobs);
    }
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        if (na->function != NULL) {
            const ac_solver_function_result *f = na->function;
            fprintf(fp,
                    "%s: %s, %.4g of %zu instances busy (%.4g Erlangs offered), throttled "
                    "%.3g%s, executions failing %.3g, cold starts %.3g (%.4g/s)",
                    m->nodes[i].id,
                    f->mode == AC_SOLVER_FN_POLLED  ? "polled by its queue"
                    : f->mode == AC_SOLVER_FN_ASYNC ? "async"
                                                    : "sync",
                    f->busy, f->concurrency, f->load, f->throttle_probability,
                    f->mode == AC_SOLVER_FN_SYNC ? " (Erlang-B)" : "", f->execution_failure,
                    f->cold_probability, f->cold_start_rate);
            if (f->mode == AC_SOLVER_FN_ASYNC && !f->overload)
                fprintf(fp, ", waits %.3g (mean %.4gs)", f->wait_probability, f->mean_wait);
            fputc('\n', fp);
        } else if (na->queue != NULL) {
            const ac_solver_queue_result *q = na->queue;
            fprintf(fp,
                    "%s: %zu consumer slots, %.4g Erlangs of executions, deliveries failing "
                    "%.3g, %.4g receives per message, dead letters %.3g, rejected %.3g%s\n",
                    m->nodes[i].id, q->slots, q->load, q->delivery_failure, q->receives,
                    q->dead_letter_probability, q->reject_probability,
                    q->batching ? " (runs with a backlog: batches fill up)" : "");
        } else if (na->gateway != NULL) {
            const ac_solver_gateway_result *g = na->gateway;
            if (isinf(g->rate_limit))
                fprintf(fp, "%s: no rate limit\n", m->nodes[i].id);
            else
                fprintf(fp,
                        "%s: token bucket %.6g/s with %zu tokens, load %.4g, rejected (429) "
                        "%.3g (M/D/1/K%s), %.4g tokens in use\n",
                        m->nodes[i].id, g->rate_limit, g->bucket, g->load, g->reject_probability,
                        g->bound ? ", an upper bound" : "", g->mean_deficit);
        }
    }
    if (a->e2e.available) {
        fputs("\nend to end: mean ", fp);
        fmt_time(fp, a->e2e.mean_response_time);
        if (a->e2e.percentiles) {
            fputs(", p50 ", fp);
            fmt_time(fp, a->e2e.p50);
            fputs(", p95 ", fp);
            fmt_time(fp, a->e2e.p95);
            fputs(", p99 ", fp);
            fmt_time(fp, a->e2e.p99);
        }
        if (isfinite(a->e2e.throughput))
            fprintf(fp, ", throughput %.6g/s, loss %.3g", a->e2e.throughput,
                    a->e2e.loss_probability);
        fputc('\n', fp);
    }
    if (a->has_headroom) {
        char text[512];
        ac_report_headroom_sentence(text, sizeof text, m, a);
        if (isinf(a->headroom))
            fprintf(fp, "headroom: %s\n", text);
        else
            fprintf(fp, "headroom: factor %.6g. %s\n", a->headroom, text);
    }
    return ferror(fp) ? AC_EIO : AC_OK;
}

int ac_report_csv(FILE *fp, const ac_report_file *rf)
{
    const ac_model *m = rf->model;
    const ac_analysis *a = rf->analysis;
    double tmax = 0.0;
    const size_t rows = 501;
    if (m == NULL || a == NULL)
        return AC_EINVAL;
    /* up to the largest p99.9 of the nodes and end to end */
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node_analysis *na = &a->nodes[i];
        double q = NAN;
        ac_error err = {0};
        if (!ac_node_analysis_has_law(na) || na->gateway != NULL)
            continue;
        if (ac_node_analysis_quantile(na, 0.999, &q, &err) == AC_OK && q > tmax)
            tmax = q;
    }
    if (a->e2e.available && a->e2e.percentiles && a->e2e.p99 * 1.5 > tmax)
        tmax = a->e2e.p99 * 1.5;
    if (!(tmax > 0.0))
        tmax = 1.0;
    fputs("t_s", fp);
    for (size_t i = 0; i < m->nnodes; i++)
        if (ac_node_analysis_has_law(&a->nodes[i]))
            fprintf(fp, ",ccdf_%s", m->nodes[i].id);
    if (a->e2e.grid_n > 0)
        fputs(",ccdf_end_to_end", fp);
    fputc('\n', fp);
    for (size_t r = 0; r < rows; r++) {
        double t = tmax * (double)r / (double)(rows - 1);
        fprintf(fp, "%.9g", t);
        for (size_t i = 0; i < m->nnodes; i++) {
            const ac_node_analysis *na = &a->nodes[i];
            if (!ac_node_analysis_has_law(na))
                continue;
            fprintf(fp, ",%.9g", ac_node_analysis_ccdf(na, t));
        }
        if (a->e2e.grid_n > 0) {
            /* linear interpolation on the end-to-end lattice */
            const ac_end_to_end *e = &a->e2e;
            double h = e->grid_t[1] - e->grid_t[0], x = t / h, v;
            size_t k = (size_t)x;
            if (k + 1 >= e->grid_n)
                v = e->grid_ccdf[e->grid_n - 1];
            else
                v = e->grid_ccdf[k] + (x - (double)k) * (e->grid_ccdf[k + 1] - e->grid_ccdf[k]);
            fprintf(fp, ",%.9g", v);
        }
        fputc('\n', fp);
    }
    return ferror(fp) ? AC_EIO : AC_OK;
}
