/*
 * The pre-warming pings of the transient (<mitigation kind="pre-warming">): at t = 0, I,
 * 2I, ... a function's instances alive are topped up to the amount W with new idle-warm
 * instances (an event: the driver restarts).
 */
#include <math.h>

#include "solver/transient_internal.h"

/* Pre-warming pings due by t: the instances alive are topped up to the amount W with new
 * idle-warm instances in the youngest stage (no scale token). *changed = 1 when a state
 * jumped (the ODE must restart). */
void ac_solver_tr_prewarm_events(tr_ctx *c, double t, double *y, int *changed)
{
    for (size_t i = 0; i < c->nfns; i++) {
        tr_fn *F = &c->fns[i];
        double deficit;
        if (!(F->next_ping <= t + ac_solver_tr_eps(t)))
            continue;
        deficit = F->W - ac_solver_tr_fn_alive(F, y);
        if (deficit > 0.0) {
            y[F->off + FN_W] = tr_pos(y[F->off + FN_W]) + deficit;
            F->prewarmed += deficit;
            *changed = 1;
        }
        if (F->I > 0.0) {
            double k = floor((t + ac_solver_tr_eps(t)) / F->I) + 1.0;
            F->next_ping = k * F->I;
        } else {
            F->next_ping = INFINITY; /* no interval: one ping at t = 0 */
        }
    }
}

/* The next pre-warming ping. */
double ac_solver_tr_prewarm_next(const tr_ctx *c)
{
    double next = INFINITY;
    for (size_t i = 0; i < c->nfns; i++)
        next = fmin(next, c->fns[i].next_ping);
    return next;
}
