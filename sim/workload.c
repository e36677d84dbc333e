/*
 * Sources (renewal or non-homogeneous Poisson) and populations (closed
 * clients with exponential think times).
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/internal.h"

/* The rate of profile p at time t, times `scale` (ac_profile_rate: linear between points,
 * held after the last point, or periodic with `repeat`). */
double ac_sim_profile_rate(const ac_profile *p, double scale, double t)
{
    return scale * ac_profile_rate(p, t, NULL);
}

/* The next arrival of source e after `now`, or INFINITY when there is none
 * before the horizon.
 *  - profile: thinning (Lewis-Shedler) of a Poisson process of rate
 *    lambda_max = the profile's maximum: a candidate at t is kept with
 *    probability rate(t) / lambda_max;
 *  - scv = 1: exponential; scv < 1: gamma(shape 1/scv, scale scv/lambda);
 *  - scv > 1: balanced-means H2: phase i with probability p_i, mean
 *    1/(2 p_i lambda), p1 = (1 + sqrt((scv-1)/(scv+1)))/2. */
static double next_arrival(ac_sim_state *s, const ac_sim_entry *e)
{
    if (e->profile != NULL) {
        double t = s->now;
        if (!(e->lambda_max > 0))
            return INFINITY;
        for (;;) {
            t += ac_sim_exp(s, 1.0 / e->lambda_max);
            if (t > s->horizon)
                return INFINITY;
            if (ac_sim_uniform(s) * e->lambda_max <
                ac_sim_profile_rate(e->profile, e->scale, fmax(0.0, t - s->opt->profile_offset)))
                return t;
        }
    }
    if (!(e->rate > 0))
        return INFINITY;
    if (e->scv == 1.0)
        return s->now + ac_sim_exp(s, e->mean_gap);
    if (e->scv < 1.0)
        return s->now + gsl_ran_gamma(s->rng, 1.0 / e->scv, e->scv / e->rate);
    if (ac_sim_uniform(s) < e->h2_p1)
        return s->now + ac_sim_exp(s, e->h2_mean1);
    return s->now + ac_sim_exp(s, e->h2_mean2);
}

static void schedule_next(ac_sim_state *s, uint32_t src)
{
    const ac_sim_entry *e = &s->entries[src];
    double t = next_arrival(s, e);
    if (t <= s->horizon)
        ac_sim_event_schedule(s, e->ev, t);
}

void ac_sim_source_fire(ac_sim_state *s, uint32_t src)
{
    schedule_next(s, src);
    ac_sim_request_start(s, src, AC_SIM_NIL);
}

static void think(ac_sim_state *s, uint32_t client)
{
    const ac_sim_entry *e = &s->entries[s->client_entry[client]];
    double t = e->think > 0 ? ac_sim_exp(s, e->think) : 0.0;
    ac_sim_event_schedule(s, s->client_ev[client], s->now + t);
}

void ac_sim_client_fire(ac_sim_state *s, uint32_t client)
{
    ac_sim_request_start(s, s->client_entry[client], client);
}

void ac_sim_client_done(ac_sim_state *s, uint32_t client)
{
    think(s, client);
}

int ac_sim_entries_setup(ac_sim_state *s)
{
    const ac_model *m = s->model;
    const ac_sim_options *opt = s->opt;
    size_t c = 0;
    s->nsources = m->nsources;
    s->nentries = m->nsources + m->npopulations;
    if (s->nentries > 0 && (s->entries = calloc(s->nentries, sizeof *s->entries)) == NULL)
        return AC_ENOMEM;
    for (size_t i = 0; i < m->npopulations; i++)
        s->nclients += m->populations[i].size;
    if (s->nclients > 0) {
        s->client_ev = malloc(s->nclients * sizeof *s->client_ev);
        s->client_entry = malloc(s->nclients * sizeof *s->client_entry);
        if (s->client_ev == NULL || s->client_entry == NULL)
            return AC_ENOMEM;
    }
    for (size_t i = 0; i < m->nsources; i++) {
        const ac_source *src = &m->sources[i];
        ac_sim_entry *e = &s->entries[i];
        e->to = (uint32_t)src->to;
        e->rate = src->rate * opt->load_scale;
        e->mean_gap = e->rate > 0 ? 1.0 / e->rate : 0.0;
        e->scv = src->scv;
        e->scale = opt->load_scale;
        if (e->scv > 1.0) {
            double p1 = 0.5 * (1.0 + sqrt((e->scv - 1.0) / (e->scv + 1.0)));
            e->h2_p1 = p1;
            e->h2_mean1 = e->rate > 0 ? 1.0 / (2.0 * p1 * e->rate) : 0.0;
            e->h2_mean2 = e->rate > 0 ? 1.0 / (2.0 * (1.0 - p1) * e->rate) : 0.0;
        }
        if (opt->use_profiles && src->profile != AC_NONE) {
            e->profile = &m->profiles[src->profile];
            for (size_t k = 0; k < e->profile->npoints; k++)
                if (e->profile->points[k].rate * e->scale > e->lambda_max)
                    e->lambda_max = e->profile->points[k].rate * e->scale;
        }
        e->ev = ac_sim_event_alloc(s);
        if (e->ev == AC_SIM_NIL)
            return s->status;
        s->ev[e->ev].kind = AC_SIM_EV_SOURCE;
        s->ev[e->ev].arg = (uint32_t)i;
        schedule_next(s, (uint32_t)i);
    }
    for (size_t i = 0; i < m->npopulations; i++) {
        const ac_population *pop = &m->populations[i];
        uint32_t ei = (uint32_t)(m->nsources + i);
        ac_sim_entry *e = &s->entries[ei];
        e->to = (uint32_t)pop->to;
        e->is_population = 1;
        e->size = pop->size;
        e->think = pop->think_time;
        e->first_client = (uint32_t)c;
        for (size_t k = 0; k < pop->size; k++, c++) {
            uint32_t ev = ac_sim_event_alloc(s);
            if (ev == AC_SIM_NIL)
                return s->status;
            s->ev[ev].kind = AC_SIM_EV_THINK;
            s->ev[ev].arg = (uint32_t)c;
            s->client_ev[c] = ev;
            s->client_entry[c] = ei;
            think(s, (uint32_t)c);
        }
    }
    return 0;
}

/* The longest time constant of the model: service times, think times,
 * inter-arrival times, link transmission times and latencies, function
 * duration + cold start, a gateway bucket's refill time. */
double ac_sim_timescale(const ac_model *m)
{
    double tau = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        switch (nd->kind) {
        case AC_NODE_POOL:
            if (nd->u.pool.service_rate > 0)
                tau = fmax(tau, 1.0 / nd->u.pool.service_rate);
            break;
        case AC_NODE_FUNCTION:
            tau = fmax(tau, nd->u.function.duration + nd->u.function.cold_start);
            break;
        case AC_NODE_GATEWAY:
            if (isfinite(nd->u.gateway.rate_limit) && nd->u.gateway.rate_limit > 0)
                tau = fmax(tau, (nd->u.gateway.burst > 1 ? (double)nd->u.gateway.burst : 1.0) /
                                    nd->u.gateway.rate_limit);
            break;
        case AC_NODE_QUEUE: break;
        }
    }
    for (size_t i = 0; i < m->nsources; i++)
        if (m->sources[i].rate > 0)
            tau = fmax(tau, 1.0 / m->sources[i].rate);
    for (size_t i = 0; i < m->npopulations; i++)
        tau = fmax(tau, m->populations[i].think_time);
    for (size_t i = 0; i < m->nlinks; i++) {
        tau = fmax(tau, m->links[i].latency);
        if (isfinite(m->links[i].capacity) && m->links[i].capacity > 0)
            tau = fmax(tau, 1.0 / m->links[i].capacity);
    }
    return tau > 0 ? tau : 1.0;
}

/* The slowest serverless delay: keep-alive, pre-warm interval, the async back-offs of all
 * retries (60 s, then 120 s each), visibility timeout x max-receives; 0 without any. */
double ac_sim_slow_timescale(const ac_model *m)
{
    double tau = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const ac_node *nd = &m->nodes[i];
        if (nd->kind == AC_NODE_FUNCTION) {
            const ac_function *f = &nd->u.function;
            if (isfinite(f->keep_alive))
                tau = fmax(tau, f->keep_alive);
            tau = fmax(tau, f->prewarm_interval);
            if (f->invocation == AC_INVOCATION_ASYNC && f->retries > 0)
                tau = fmax(tau, 60.0 + 120.0 * (double)(f->retries - 1));
        } else if (nd->kind == AC_NODE_QUEUE) {
            tau = fmax(tau, nd->u.queue.visibility_timeout * (double)nd->u.queue.max_receives);
        }
    }
    return tau;
}

/* The settling time of a replication started empty, W = 100 tau + tau_slow: 100 of the
 * longest time constant tau (ac_sim_timescale) relax the queues and busy counts, and what the
 * start-up leaves after that lives at most the slowest serverless delay tau_slow
 * (ac_sim_slow_timescale): an idle instance that the start-up's backlog created is reclaimed
 * a keep-alive after its last use, so the two add up (analysis/confirm.c's warm-up rule, its
 * tau_fast taken as the simulator's wider time scale). */
double ac_sim_settling_time(const ac_model *m)
{
    return 100.0 * ac_sim_timescale(m) + ac_sim_slow_timescale(m);
}
