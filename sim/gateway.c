/*
 * The gateway node kind: an API gateway with a token bucket (doc/serverless.md, "Gateway").
 *
 * The bucket holds max(burst, 1) tokens, is full at time 0 and refills continuously at
 * `rate-limit`; a request that finds fewer than one token is refused (429: lost, the request
 * fails), otherwise it takes one and goes on at once. An unbounded rate-limit admits all.
 * The bucket needs no event: its content is brought up to date at each arrival.
 *
 * An admitted job enters a `scope` group (ac_sim_group_scope_enter): the synchronous work
 * downstream of the gateway belongs to it (a job that reaches a queue or an async function
 * leaves it: the caller has its answer, ac_sim_group_scope_leave), and when the scope
 * completes, a time above `timeout` is a 504 (the request fails; the work went on).
 *
 * Time average: the token deficit (depth - tokens, the work of the equivalent M/D/1/K queue
 * in tokens), integrated exactly between arrivals (it falls linearly at the refill rate down
 * to 0) into area_jobs. Counters: attempts/first (requests), lost (refused), completions
 * (admitted; response time 0), timeouts (504s), failures (refused + 504s).
 */
#include <math.h>

#include "sim/internal.h"

/* Add the deficit's integral over [max(t_tokens, last_t), now] to area_jobs. */
static void gw_touch(ac_sim_state *s, ac_sim_node *n)
{
    const ac_sim_gateway_state *g = &n->u.gw;
    if (isfinite(g->rate)) {
        double a = g->t_tokens > n->c.last_t ? g->t_tokens : n->c.last_t;
        double len = s->now - a;
        double da = (g->depth - g->tokens) - g->rate * (a - g->t_tokens); /* deficit at a */
        if (len > 0 && da > 0) {
            if (da <= g->rate * len)
                n->c.area_jobs += da * da / (2.0 * g->rate);
            else
                n->c.area_jobs += len * (da - 0.5 * g->rate * len);
        }
    }
    n->c.last_t = s->now;
}

static int gw_arrive(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_gateway_state *g = &n->u.gw;
    if (isfinite(g->rate)) {
        double tokens = g->tokens + g->rate * (s->now - g->t_tokens);
        gw_touch(s, n);
        g->tokens = tokens < g->depth ? tokens : g->depth;
        g->t_tokens = s->now;
        if (g->tokens < 1.0)
            return 0; /* 429 */
        g->tokens -= 1.0;
    }
    ac_sim_group_scope_enter(s, j, n->index);
    if (s->status != 0)
        return 0;
    ac_sim_job_done(s, n, j);
    return 1;
}

void ac_sim_gateway_scope_done(ac_sim_state *s, uint32_t g)
{
    ac_sim_node *n = &s->nodes[s->groups[g].entry];
    if (s->now - s->groups[g].t0 > n->u.gw.timeout) {
        n->c.timeouts++;
        n->c.failures++;
        ac_sim_group_mark_failed(s, g);
    }
}

static void gw_event(ac_sim_state *s, ac_sim_node *n, uint32_t e)
{
    (void)n;
    (void)e;
    ac_sim_fail(s, AC_EINVAL, "internal error: a gateway has no events");
}

static int gw_place(ac_sim_state *s, ac_sim_node *n, size_t server, size_t njobs)
{
    (void)n;
    (void)server;
    (void)njobs;
    return ac_error_set(s->err, AC_EINVAL, "simulation: an initial state is for pools only");
}

const ac_sim_node_ops ac_sim_gateway_ops = {"gateway", gw_arrive, gw_event,
                                            gw_place,  NULL,      gw_touch};

int ac_sim_gateway_setup(ac_sim_state *s, ac_sim_node *n, const ac_gateway *gw)
{
    ac_sim_gateway_state *g = &n->u.gw;
    (void)s;
    n->ops = &ac_sim_gateway_ops;
    n->kind = AC_SIM_KIND_GATEWAY;
    g->rate = gw->rate_limit;
    g->depth = gw->burst > 1 ? (double)gw->burst : 1.0;
    g->timeout = gw->timeout;
    g->tokens = g->depth; /* full at time 0 */
    g->t_tokens = 0;
    n->servers = (size_t)g->depth;
    n->timeout = 0;
    n->retries = 0;
    return 0;
}
