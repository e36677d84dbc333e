/*
 * The links in the transient (transient.h, ac_transient_link; the steady state's semantics,
 * solver/link.c: a FIFO transmitting each job in 1/c, then the propagation `latency`).
 *
 * Open loop behind the nodes' flows: the link of from -> to is fed the flow of the routes
 * from -> to, f(t) = sum over them of throughput_from(t) p fanout (the copies sent), and
 * holds a fluid backlog
 *   x' = f - c   while x > 0 or f > c,   else x = 0,
 * integrated between the samples with f linear (exact for a piecewise-linear f when the
 * backlog does not empty inside a step; it then empties at the crossing). It carries c
 * while backlogged, else f. The node behind it is fed the ODE's flow, not the carried one
 * (the ODE has no link state): where f exceeds c somewhere, `saturated` says so and the
 * result's note too; below the capacity the two are the same.
 * The law of a job arriving at t: a = latency + 1/c + x(t)/c (the fluid FIFO wait), and
 * while x = 0 and rho = f/c < 1 the M/D/1 wait at the instantaneous load, fitted as
 * exponential with the exact P(W > 0) = rho and E[W] = rho / (2 c (1 - rho))
 * (Pollaczek-Khinchine); an unbounded capacity is the pure delay. The M/D/1 wait's tail
 * decays faster than the exponential of the same mean below rho ~ 0.8 (the fit's p95 is
 * high there, conservatively) and is measured against the exact M/D/1 law in
 * tests/test_transient_metrics.c. A link's capacity-loss fault is not in the plans yet.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "solver/transient_internal.h"

#define LAWP(l, ns, k, s) ((l)[(size_t)(k) * (ns) + (s)])

/* The flow into link l at sample s: its routes' copies. */
static double link_inflow(const ac_model *m, const ac_transient *tr, size_t l, size_t s)
{
    const ac_link *ln = &m->links[l];
    double f = 0.0;
    for (size_t r = 0; r < m->nroutes; r++) {
        const ac_route *rt = &m->routes[r];
        if (rt->from == ln->from && rt->to == ln->to)
            f += tr->nodes[rt->from].throughput[s] * rt->p * (double)rt->fanout;
    }
    return fmax(f, 0.0);
}

/* The law of link ln at sample s, carrying f with backlog x. */
static void link_law(const ac_link *ln, double f, double x, double *law, size_t ns, size_t s)
{
    double c = ln->capacity, a = ln->latency, pw = 0.0, g = 0.0;
    if (isfinite(c) && c > 0.0) {
        double rho = f / c;
        a += 1.0 / c + x / c;
        if (!(x > 1e-9) && rho > 0.0 && rho < 1.0) {
            pw = rho;
            g = 2.0 * c * (1.0 - rho);
        }
    }
    LAWP(law, ns, AC_TRANSIENT_LAW_SHIFT, s) = a;
    LAWP(law, ns, AC_TRANSIENT_LAW_PCOLD, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_COLD, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_PWAIT, s) = pw;
    LAWP(law, ns, AC_TRANSIENT_LAW_WRATE, s) = g;
    LAWP(law, ns, AC_TRANSIENT_LAW_SMEAN, s) = 0.0;
    LAWP(law, ns, AC_TRANSIENT_LAW_SCAP, s) = INFINITY;
}

/* x after dt from x0 with the inflow linear from f0 to f1 against capacity c. */
static double backlog_step(double x0, double f0, double f1, double c, double dt)
{
    double d0 = f0 - c, d1 = f1 - c, x1;
    if (!isfinite(c))
        return 0.0;
    if (d0 >= 0.0 && d1 >= 0.0)
        return x0 + 0.5 * (d0 + d1) * dt;
    x1 = x0 + 0.5 * (d0 + d1) * dt;
    if (d0 < 0.0 && d1 < 0.0)
        return fmax(0.0, x1);
    {
        /* the drift changes sign at tc inside the step: integrate each side, clamping */
        double tc = dt * d0 / (d0 - d1), xm = x0 + 0.5 * d0 * tc;
        xm = fmax(0.0, xm);
        return fmax(0.0, xm + 0.5 * d1 * (dt - tc));
    }
}

void ac_solver_tr_links_finish(const tr_ctx *c, ac_transient *tr)
{
    const ac_model *m = c->m;
    size_t ns = tr->nsamples;
    for (size_t l = 0; l < tr->nlinks; l++) {
        const ac_link *ln = &m->links[l];
        ac_transient_link *k = &tr->links[l];
        double x = 0.0, cap = ln->capacity;
        k->saturated = 0;
        for (size_t s = 0; s < ns; s++) {
            double f = link_inflow(m, tr, l, s);
            if (s > 0)
                x = backlog_step(x, k->arrival_rate[s - 1], f, cap, tr->t[s] - tr->t[s - 1]);
            k->arrival_rate[s] = f;
            k->backlog[s] = x;
            k->throughput[s] = x > 0.0 ? cap : fmin(f, cap);
            if (f > cap)
                k->saturated = 1;
            link_law(ln, f, x, k->law, ns, s);
        }
        if (k->saturated) {
            size_t len = strlen(tr->note);
            snprintf(tr->note + len, sizeof tr->note - len,
                     "%slink %s -> %s is offered more than its capacity: the transient feeds "
                     "'%s' the offered flow (links are open loop)",
                     len ? "; " : "", m->nodes[ln->from].id, m->nodes[ln->to].id,
                     m->nodes[ln->to].id);
        }
    }
}
