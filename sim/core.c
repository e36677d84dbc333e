/*
 * The event core: heap, object pools, requests and fan-out groups, routing,
 * timeouts and retries, and the event loop of one replication.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

/* ---- failure ------------------------------------------------------------------------------- */

void ac_sim_fail(ac_sim_state *s, int code, const char *msg)
{
    if (s->status == 0) {
        s->status = code;
        ac_error_set(s->err, code, "simulation: %s", msg);
    }
}

/* ---- heap of (time, event) ------------------------------------------------------------------ */

/* Remove the item at heap position i (no hole open). */
static void heap_remove_at(ac_sim_state *s, size_t i)
{
    double last;
    uint32_t last_ev;
    s->ev[s->hev[i]].pos = AC_SIM_NIL;
    s->nheap--;
    if (i == s->nheap)
        return;
    last = s->hkey[s->nheap];
    last_ev = s->hev[s->nheap];
    if (i > 0 && s->hkey[(i - 1) / AC_SIM_HEAP_D] > last) {
        ac_sim_heap_place(s, i, last, last_ev);
        ac_sim_heap_sift_up(s, i);
    } else {
        ac_sim_heap_sift_down(s, i, last, last_ev);
    }
}

/* Unschedule event e (scheduled). */
static void heap_remove_event(ac_sim_state *s, uint32_t e)
{
    if (s->hole)
        ac_sim_heap_fill_hole(s);
    heap_remove_at(s, s->ev[e].pos);
}

/* ---- events ---------------------------------------------------------------------------------- */

static int events_grow(ac_sim_state *s)
{
    size_t cap = s->nev_cap ? 2 * s->nev_cap : 1024;
    ac_sim_event *ev;
    double *key;
    uint32_t *hev;
    if (cap >= AC_SIM_NIL) {
        ac_sim_fail(s, AC_ELIMIT, "too many pending events");
        return AC_ELIMIT;
    }
    ev = realloc(s->ev, cap * sizeof *ev);
    if (ev == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (events)");
        return AC_ENOMEM;
    }
    s->ev = ev;
    key = realloc(s->hkey, cap * sizeof *key);
    if (key != NULL)
        s->hkey = key;
    hev = realloc(s->hev, cap * sizeof *hev);
    if (hev != NULL)
        s->hev = hev;
    if (key == NULL || hev == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (event heap)");
        return AC_ENOMEM;
    }
    for (size_t i = s->nev_cap; i < cap; i++) {
        ev[i].pos = AC_SIM_NIL;
        ev[i].kind = AC_SIM_EV_FREE;
        ev[i].sub = 0;
        ev[i].arg = 0;
        ev[i].node = (i + 1 < cap) ? (uint32_t)(i + 1) : s->ev_free;
    }
    s->ev_free = (uint32_t)s->nev_cap;
    s->nev_cap = cap;
    return 0;
}

/* An unscheduled event from the free list; AC_SIM_NIL on failure (status set). */
uint32_t ac_sim_event_alloc(ac_sim_state *s)
{
    uint32_t e;
    if (s->ev_free == AC_SIM_NIL && events_grow(s) != 0)
        return AC_SIM_NIL;
    e = s->ev_free;
    s->ev_free = s->ev[e].node;
    s->ev[e].pos = AC_SIM_NIL;
    s->ev[e].node = 0;
    s->ev[e].arg = 0;
    s->ev[e].sub = 0;
    return e;
}

void ac_sim_event_release(ac_sim_state *s, uint32_t e)
{
    if (s->ev[e].pos != AC_SIM_NIL)
        heap_remove_event(s, e);
    s->ev[e].kind = AC_SIM_EV_FREE;
    s->ev[e].node = s->ev_free;
    s->ev_free = e;
}

void ac_sim_event_cancel(ac_sim_state *s, uint32_t e)
{
    if (s->ev[e].pos != AC_SIM_NIL)
        heap_remove_event(s, e);
}

/* ---- jobs ------------------------------------------------------------------------------------ */

int ac_sim_jobs_grow(ac_sim_state *s)
{
    size_t cap = s->njob_cap ? 2 * s->njob_cap : 1024;
    ac_sim_job *jobs;
    if (cap >= AC_SIM_NIL)
        cap = AC_SIM_NIL - 1;
    if (cap <= s->njob_cap) {
        ac_sim_fail(s, AC_ELIMIT, "too many jobs");
        return AC_ELIMIT;
    }
    jobs = realloc(s->jobs, cap * sizeof *jobs);
    if (jobs == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (jobs)");
        return AC_ENOMEM;
    }
    s->jobs = jobs;
    for (size_t i = s->njob_cap; i < cap; i++)
        jobs[i].next = (i + 1 < cap) ? (uint32_t)(i + 1) : s->job_free;
    s->job_free = (uint32_t)s->njob_cap;
    s->njob_cap = cap;
    return 0;
}

/* A fresh job (no group, attempt 0); AC_SIM_NIL on failure (status set). */
static inline uint32_t job_alloc(ac_sim_state *s)
{
    uint32_t j;
    ac_sim_job *jb;
    if (s->njobs_live >= s->max_jobs) {
        ac_sim_fail(s, AC_ELIMIT,
                    "more jobs in the system than max_jobs: the model looks overloaded");
        return AC_SIM_NIL;
    }
    if (s->job_free == AC_SIM_NIL && ac_sim_jobs_grow(s) != 0)
        return AC_SIM_NIL;
    j = s->job_free;
    jb = &s->jobs[j];
    s->job_free = jb->next;
    jb->next = AC_SIM_NIL;
    jb->group = AC_SIM_NIL;
    jb->tmo_ev = AC_SIM_NIL;
    jb->node = AC_SIM_NIL;
    jb->server = 0;
    jb->attempt = 0;
    jb->zombie = 0;
    jb->t_arrive = s->now;
    s->njobs_live++;
    return j;
}

uint32_t ac_sim_job_alloc(ac_sim_state *s)
{
    return job_alloc(s);
}

void ac_sim_job_release(ac_sim_state *s, uint32_t j)
{
    s->jobs[j].next = s->job_free;
    s->job_free = j;
    s->njobs_live--;
}

/* ---- groups (requests and fan-outs) --------------------------------------------------------- */

/* Double the group pool (and the join counters beside it); 0 or AC_E* (status set). */
static int groups_grow(ac_sim_state *s)
{
    size_t cap = s->ngroup_cap ? 2 * s->ngroup_cap : 1024;
    ac_sim_group *gr;
    if (cap >= AC_SIM_NIL) {
        ac_sim_fail(s, AC_ELIMIT, "too many requests in the system");
        return s->status;
    }
    gr = realloc(s->groups, cap * sizeof *gr);
    if (gr == NULL) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (requests)");
        return s->status;
    }
    s->groups = gr;
    if (s->njoin > 0) {
        uint32_t *p = realloc(s->pending, cap * s->njoin * sizeof *p);
        if (p == NULL) {
            ac_sim_fail(s, AC_ENOMEM, "out of memory (joins)");
            return s->status;
        }
        s->pending = p;
        memset(p + s->ngroup_cap * s->njoin, 0, (cap - s->ngroup_cap) * s->njoin * sizeof *p);
    }
    for (size_t i = s->ngroup_cap; i < cap; i++)
        gr[i].next_free = (i + 1 < cap) ? (uint32_t)(i + 1) : s->group_free;
    s->group_free = (uint32_t)s->ngroup_cap;
    s->ngroup_cap = cap;
    return 0;
}

static inline uint32_t group_alloc(ac_sim_state *s)
{
    uint32_t g;
    if (s->group_free == AC_SIM_NIL && groups_grow(s) != 0)
        return AC_SIM_NIL;
    g = s->group_free;
    s->group_free = s->groups[g].next_free;
    s->groups[g].t0 = s->now;
    s->groups[g].parent = AC_SIM_NIL;
    s->groups[g].live = 0;
    s->groups[g].npending = 0;
    s->groups[g].entry = AC_SIM_NIL;
    s->groups[g].client = AC_SIM_NIL;
    s->groups[g].failed = 0;
    s->groups[g].scope = 0;
    return g;
}

static inline void group_free(ac_sim_state *s, uint32_t g)
{
    if (s->njoin > 0)
        memset(s->pending + (size_t)g * s->njoin, 0, s->njoin * sizeof *s->pending);
    s->groups[g].next_free = s->group_free;
    s->group_free = g;
}

/* A request is complete: end-to-end statistics, and its client thinks again. */
static inline void request_complete(ac_sim_state *s, uint32_t g)
{
    const ac_sim_group *gr = &s->groups[g];
    ac_sim_entry *e = &s->entries[gr->entry];
    uint32_t client = gr->client;
    if (s->measuring) {
        /* the end-to-end time is that of the successful requests: a request refused at
           once must not make the latency look better */
        if (gr->failed) {
            e->c.completions++;
            e->c.failed_requests++;
            if (gr->failed & AC_SIM_FAILED_ERROR)
                e->c.error_requests++;
        } else {
            ac_sim_counts_record(s, &e->c, s->now - gr->t0);
        }
    }
    if (client != AC_SIM_NIL)
        ac_sim_client_done(s, client);
}

/* Give back one unit of `live` to group g. A group whose live units are all
 * jobs waiting at joins that cannot fill any more (live == npending) is
 * complete too. A complete group frees itself and gives one unit back to its
 * parent; a complete request is recorded. */
static inline void group_release(ac_sim_state *s, uint32_t g)
{
    while (g != AC_SIM_NIL) {
        ac_sim_group *gr = &s->groups[g];
        uint32_t parent;
        gr->live--;
        if (gr->live > 0 && gr->live == gr->npending) {
            memset(s->pending + (size_t)g * s->njoin, 0, s->njoin * sizeof *s->pending);
            gr->npending = 0;
            gr->live = 0;
        }
        if (gr->live > 0)
            return;
        if (gr->scope)
            ac_sim_gateway_scope_done(s, g);
        parent = s->groups[g].parent;
        if (parent == AC_SIM_NIL)
            request_complete(s, g);
        group_free(s, g);
        g = parent;
    }
}

/* Mark the request of group g failed, how: AC_SIM_FAILED_* bits. */
static void group_mark(ac_sim_state *s, uint32_t g, unsigned how)
{
    while (g != AC_SIM_NIL && s->groups[g].parent != AC_SIM_NIL)
        g = s->groups[g].parent;
    if (g != AC_SIM_NIL)
        s->groups[g].failed = (uint8_t)(s->groups[g].failed | how);
}

void ac_sim_group_mark_failed(ac_sim_state *s, uint32_t g)
{
    group_mark(s, g, AC_SIM_FAILED_ERROR);
}

/* A job that gave up (or was lost with no retry left) leaves the system; its request fails
 * `how` (AC_SIM_FAILED_*). */
static void job_fail_as(ac_sim_state *s, uint32_t j, unsigned how)
{
    uint32_t g = s->jobs[j].group;
    ac_sim_job_release(s, j);
    if (g != AC_SIM_NIL) {
        group_mark(s, g, how);
        group_release(s, g);
    }
}

void ac_sim_job_fail(ac_sim_state *s, uint32_t j)
{
    job_fail_as(s, j, AC_SIM_FAILED_ERROR);
}

void ac_sim_job_drop(ac_sim_state *s, uint32_t j)
{
    uint32_t g = s->jobs[j].group;
    if (s->jobs[j].tmo_ev != AC_SIM_NIL)
        ac_sim_event_release(s, s->jobs[j].tmo_ev);
    ac_sim_job_release(s, j);
    if (g != AC_SIM_NIL)
        group_release(s, g);
}

/* Job j reaches a queue or an async function: the caller is answered at once, so the job
 * leaves its gateway's scope (when it is directly in one) for the scope's parent, and the
 * scope may complete (its 504 check is on the synchronous work only). A job inside a
 * fan-out within the scope stays in it. */
void ac_sim_group_scope_leave(ac_sim_state *s, uint32_t j)
{
    uint32_t g = s->jobs[j].group, parent;
    if (g == AC_SIM_NIL || !s->groups[g].scope)
        return;
    parent = s->groups[g].parent;
    if (parent == AC_SIM_NIL)
        return;
    s->groups[parent].live++;
    s->jobs[j].group = parent;
    group_release(s, g);
}

/* Job j enters the scope of gateway `node`: a child group of its group that holds
 * everything downstream (the job's unit moves into it, so the parent's count is
 * unchanged). */
void ac_sim_group_scope_enter(ac_sim_state *s, uint32_t j, uint32_t node)
{
    uint32_t g = s->jobs[j].group, t;
    if (g == AC_SIM_NIL)
        return;
    t = group_alloc(s);
    if (t == AC_SIM_NIL)
        return;
    s->groups[t].parent = g;
    s->groups[t].scope = 1;
    s->groups[t].entry = node;
    s->groups[t].live = 1;
    s->jobs[j].group = t;
}

/* ---- arrivals, timeouts, retries ------------------------------------------------------------ */

static inline void arm_timeout(ac_sim_state *s, const ac_sim_node *n, uint32_t j)
{
    uint32_t e;
    if (!(n->timeout > 0))
        return;
    e = ac_sim_event_alloc(s);
    if (e == AC_SIM_NIL)
        return;
    s->ev[e].kind = AC_SIM_EV_TIMEOUT;
    s->ev[e].arg = j;
    s->jobs[j].tmo_ev = e;
    ac_sim_event_schedule(s, e, s->jobs[j].t_arrive + n->timeout);
}

/* Offer job j to node ni: an attempt. A refused attempt is lost and, while
 * the node's retries last, sent again at once; then the job fails. */
static inline void deliver(ac_sim_state *s, uint32_t ni, uint32_t j)
{
    ac_sim_node *n = &s->nodes[ni];
    for (;;) {
        ac_sim_job *jb = &s->jobs[j];
        jb->node = ni;
        if (jb->attempt == 0)
            jb->t_arrive = s->now; /* a retry keeps the first attempt's time */
        jb->zombie = 0;
        jb->tmo_ev = AC_SIM_NIL;
        n->c.attempts++;
        if (jb->attempt == 0)
            n->c.first++;
        if (n->ops->arrive(s, n, j)) {
            arm_timeout(s, n, j);
            return;
        }
        if (s->status != 0)
            return;
        n->c.lost++;
        if (s->jobs[j].attempt < n->retries) {
            s->jobs[j].attempt++;
            n->c.retries++;
            continue;
        }
        n->c.failures++;
        /* refused by a function (its concurrency or scale rate) or a gateway (429): a
           throttle; by a pool's or link's buffer or a queue's capacity: an error */
        job_fail_as(s, j,
                    n->kind == AC_SIM_KIND_FUNCTION || n->kind == AC_SIM_KIND_GATEWAY
                        ? AC_SIM_FAILED_THROTTLE
                        : AC_SIM_FAILED_ERROR);
        return;
    }
}

void ac_sim_job_retry(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    s->jobs[j].attempt++;
    n->c.retries++;
    deliver(s, n->index, j);
}

void ac_sim_job_give_up(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    n->c.failures++;
    ac_sim_job_fail(s, j);
}

/* The client of job j's node gave up on it: the copy stays (a zombie) and a
 * new attempt is sent if retries remain; otherwise the job fails. */
static void timeout_fire(ac_sim_state *s, uint32_t e)
{
    uint32_t j = s->ev[e].arg;
    uint32_t ni = s->jobs[j].node;
    ac_sim_node *n = &s->nodes[ni];
    uint32_t g = s->jobs[j].group;
    uint32_t attempt = s->jobs[j].attempt;
    ac_sim_event_release(s, e);
    s->jobs[j].tmo_ev = AC_SIM_NIL;
    s->jobs[j].zombie = 1;
    s->jobs[j].group = AC_SIM_NIL;
    n->c.timeouts++;
    if (attempt < n->retries) {
        uint32_t nj = job_alloc(s);
        if (nj == AC_SIM_NIL)
            return;
        s->jobs[nj].group = g;
        s->jobs[nj].attempt = attempt + 1;
        n->c.retries++;
        deliver(s, ni, nj);
        return;
    }
    n->c.failures++;
    if (g != AC_SIM_NIL) {
        ac_sim_group_mark_failed(s, g);
        group_release(s, g);
    }
}

/* ---- routing -------------------------------------------------------------------------------- */

/* One completion (of a job of group g) travels along route r: the fan-in
 * first (join within the nearest fan-out group, looking through gateway
 * scopes, or batch across requests), then the fan-out (k jobs in a new child
 * group). The caller still holds the completed job's unit of g. */
uint32_t ac_sim_route_target(ac_sim_state *s, const ac_sim_route *r, uint32_t g, int *absorbed)
{
    uint32_t target = g;
    *absorbed = 0;
    if (r->fanin > 1) {
        uint32_t jg = g;
        while (jg != AC_SIM_NIL && s->groups[jg].scope)
            jg = s->groups[jg].parent;
        if (jg == AC_SIM_NIL || s->groups[jg].parent == AC_SIM_NIL) {
            if (++s->batch[r->join] < r->fanin) {
                *absorbed = 1;
                return AC_SIM_NIL;
            }
            s->batch[r->join] = 0;
        } else {
            uint32_t *pc = &s->pending[(size_t)jg * s->njoin + r->join];
            ac_sim_group *gr = &s->groups[jg];
            if (*pc + 1 < r->fanin) {
                (*pc)++;
                gr->npending++;
                gr->live++;
                *absorbed = 1;
                return AC_SIM_NIL;
            }
            gr->npending -= *pc;
            gr->live -= *pc;
            *pc = 0;
            /* the whole group joined: the job returns to the enclosing group */
            if (gr->live == 1)
                target = gr->parent;
        }
    }
    if (r->fanout > 1 && target != AC_SIM_NIL) {
        uint32_t child = group_alloc(s);
        if (child == AC_SIM_NIL)
            return AC_SIM_NIL;
        s->groups[child].parent = target;
        s->groups[target].live++;
        target = child;
    }
    if (target != AC_SIM_NIL)
        s->groups[target].live += r->fanout; /* reserved before any can finish */
    return target;
}

void ac_sim_route_send(ac_sim_state *s, const ac_sim_route *r, uint32_t g)
{
    int absorbed;
    uint32_t target = ac_sim_route_target(s, r, g, &absorbed);
    if (absorbed || s->status != 0)
        return;
    for (uint32_t k = 0; k < r->fanout; k++) {
        uint32_t j = job_alloc(s);
        if (j == AC_SIM_NIL)
            return;
        s->jobs[j].group = target;
        deliver(s, r->via != AC_SIM_NIL ? r->via : r->to, j);
        if (s->status != 0)
            return;
    }
}

/* Job j finished at node n (already out of the node's structures): record
 * it, then route it on (every parallel route, and one route chosen by p; a sure choice
 * without a draw), or pass it on as itself along the node's one sure one-to-one route. */
void ac_sim_job_done(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    ac_sim_job *jb = &s->jobs[j];
    uint32_t g = jb->group;
    int zombie = jb->zombie;
    if (s->measuring) {
        ac_sim_counts_record(s, &n->c, s->now - jb->t_arrive);
        if (zombie)
            n->c.zombies++;
    }
    if (jb->tmo_ev != AC_SIM_NIL)
        ac_sim_event_release(s, jb->tmo_ev);
    if (n->cont != AC_SIM_NIL && !zombie) {
        /* one sure one-to-one route: the same job goes on (its group's count unchanged) */
        const ac_sim_route *r = &s->routes[n->cont];
        jb->next = AC_SIM_NIL;
        jb->node = AC_SIM_NIL;
        jb->server = 0;
        jb->attempt = 0;
        deliver(s, r->via != AC_SIM_NIL ? r->via : r->to, j);
        return;
    }
    ac_sim_job_release(s, j);
    if (zombie)
        return;
    for (size_t i = 0; i < n->npar; i++)
        ac_sim_route_send(s, &s->routes[n->par[i]], g);
    if (n->nchoice > 0) {
        double u = n->sure ? 0.0 : ac_sim_uniform(s);
        for (size_t i = 0; i < n->nchoice; i++) {
            if (u < n->cum[i]) {
                ac_sim_route_send(s, &s->routes[n->choice[i]], g);
                break;
            }
        }
    }
    if (g != AC_SIM_NIL)
        group_release(s, g);
}

/* Job j leaves node n (a link) for node `to`, as the same job. */
void ac_sim_job_forward(ac_sim_state *s, ac_sim_node *n, uint32_t j, uint32_t to)
{
    if (s->measuring)
        ac_sim_counts_record(s, &n->c, s->now - s->jobs[j].t_arrive);
    s->jobs[j].attempt = 0;
    deliver(s, to, j);
}

/* A new request from entry `entry` (client: population client or NIL). */
void ac_sim_request_start(ac_sim_state *s, uint32_t entry, uint32_t client)
{
    uint32_t g = group_alloc(s), j;
    if (g == AC_SIM_NIL)
        return;
    s->groups[g].entry = entry;
    s->groups[g].client = client;
    s->groups[g].live = 1;
    if (s->measuring)
        s->entries[entry].c.attempts++;
    j = job_alloc(s);
    if (j == AC_SIM_NIL)
        return;
    s->jobs[j].group = g;
    deliver(s, s->entries[entry].to, j);
}

/* Place an initial job j (no request) at node n at time 0: its timeout runs. */
void ac_sim_job_arm_initial(ac_sim_state *s, ac_sim_node *n, uint32_t j)
{
    s->jobs[j].node = n->index;
    s->jobs[j].t_arrive = s->now;
    arm_timeout(s, n, j);
}

/* ---- state ------------------------------------------------------------------------------- */

int ac_sim_state_new(const ac_model *model, const ac_sim_options *opt, double horizon,
                     double warmup, unsigned long long seed, ac_sim_state **out, ac_error *err)
{
    ac_sim_state *s = calloc(1, sizeof *s);
    int rc = AC_ENOMEM;
    *out = NULL;
    if (s == NULL)
        return ac_error_set(err, AC_ENOMEM, "simulation: out of memory");
    s->model = model;
    s->opt = opt;
    s->err = err;
    s->horizon = horizon;
    s->warmup = warmup;
    s->max_jobs = opt->max_jobs;
    s->ev_free = s->job_free = s->group_free = AC_SIM_NIL;
    s->rng = gsl_rng_alloc(&ac_sim_rng_gsl_type);
    if (s->rng == NULL)
        goto cleanup;
    s->fast = s->rng->state;
    ac_sim_rng_seed(s->fast, (uint64_t)seed);
    ac_sim_zig_init(&s->zig);
    if (events_grow(s) != 0 || ac_sim_jobs_grow(s) != 0) {
        rc = s->status;
        goto cleanup;
    }
    if (ac_sim_graph_new(model, &s->graph) != 0)
        goto cleanup;
    s->nmodel_nodes = model->nnodes;
    s->nnodes = model->nnodes + model->nlinks;
    if (s->nnodes > 0 && (s->nodes = calloc(s->nnodes, sizeof *s->nodes)) == NULL)
        goto cleanup;
    for (size_t i = 0; i < s->nnodes; i++) {
        ac_sim_node *n = &s->nodes[i];
        n->index = (uint32_t)i;
        n->cont = AC_SIM_NIL;
        if (i >= model->nnodes) {
            rc = ac_sim_link_setup(s, n, &model->links[i - model->nnodes]);
        } else {
            const ac_node *nd = &model->nodes[i];
            switch (nd->kind) {
            case AC_NODE_FUNCTION: rc = ac_sim_function_setup(s, n, &nd->u.function); break;
            case AC_NODE_QUEUE: rc = ac_sim_queue_setup(s, n, &nd->u.queue); break;
            case AC_NODE_GATEWAY: rc = ac_sim_gateway_setup(s, n, &nd->u.gateway); break;
            case AC_NODE_POOL:
            default: rc = ac_sim_pool_setup(s, n, &nd->u.pool); break;
            }
        }
        if (rc != 0 || s->status != 0) {
            rc = rc ? rc : s->status;
            goto cleanup;
        }
    }
    if ((rc = ac_sim_routes_compile(s)) != 0)
        goto cleanup;
    if ((rc = ac_sim_entries_setup(s)) != 0 || s->status != 0) {
        rc = rc ? rc : s->status;
        goto cleanup;
    }
    for (size_t i = 0; i < opt->ninitial; i++) {
        const ac_sim_initial_state *is = &opt->initial[i];
        ac_sim_node *n = &s->nodes[is->node];
        for (size_t k = 0; k < is->count; k++) {
            if ((rc = n->ops->place(s, n, k, is->jobs[k])) != 0 || s->status != 0) {
                rc = rc ? rc : s->status;
                goto cleanup;
            }
        }
    }
    if ((rc = ac_sim_faults_setup(s)) != 0 || s->status != 0) {
        rc = rc ? rc : s->status;
        goto cleanup;
    }
    *out = s;
    return 0;
cleanup:
    if (rc == AC_ENOMEM)
        ac_error_set(err, AC_ENOMEM, "simulation: out of memory");
    ac_sim_state_free(s);
    return rc;
}

void ac_sim_state_free(ac_sim_state *s)
{
    if (s == NULL)
        return;
    ac_sim_faults_cleanup(s);
    for (size_t i = 0; i < s->nnodes; i++) {
        ac_sim_node *n = &s->nodes[i];
        ac_sim_hist_free(&n->c.hist);
        free(n->par);
        free(n->choice);
        free(n->cum);
        if (n->ops != NULL && n->ops->cleanup != NULL)
            n->ops->cleanup(n);
    }
    free(s->nodes);
    for (size_t i = 0; i < s->nentries; i++)
        ac_sim_hist_free(&s->entries[i].c.hist);
    free(s->entries);
    free(s->client_ev);
    free(s->client_entry);
    ac_sim_graph_free(&s->graph);
    free(s->routes);
    free(s->batch);
    free(s->pending);
    free(s->groups);
    free(s->jobs);
    free(s->ev);
    free(s->hkey);
    free(s->hev);
    if (s->rng != NULL)
        gsl_rng_free(s->rng);
    free(s);
}

/* Zero every counter (the histogram's allocated octaves only) from time t. */
static void counts_restart(ac_sim_counts *c, double t)
{
    ac_sim_hist hist = c->hist;
    ac_sim_hist_reset(&hist);
    memset(c, 0, sizeof *c);
    c->hist = hist;
    c->last_t = t;
}

/* Start of the measurement window: close the time averages at the warm-up
 * time and zero every counter. */
void ac_sim_measure_begin(ac_sim_state *s)
{
    double save = s->now;
    s->now = s->warmup;
    ac_sim_autoscale_measure(s); /* the scalers keep the busy time before the restart */
    for (size_t i = 0; i < s->nnodes + s->nentries; i++)
        counts_restart(i < s->nnodes ? &s->nodes[i].c : &s->entries[i - s->nnodes].c, s->warmup);
    s->now = save;
    s->measuring = 1;
}

/* The event count at which the loop next looks at the budget or the progress report: the
 * first count past event_cap, or the next multiple of 65,536 (UINT64_MAX: never). */
uint64_t ac_sim_next_check(const ac_sim_state *s)
{
    uint64_t c = UINT64_MAX;
    if (s->event_cap != 0)
        c = s->event_cap + 1;
    if (s->tick != NULL && (s->events | 0xffffu) + 1 < c)
        c = (s->events | 0xffffu) + 1;
    return c;
}

/* The events of one replication from time 0 to the horizon, one by one. */
static int run_events(ac_sim_state *s)
{
    uint64_t check = ac_sim_next_check(s);
    while (s->nheap > 0) {
        double t = s->hkey[0];
        uint32_t e;
        if (t > s->horizon)
            break;
        if (!s->measuring && t >= s->warmup)
            ac_sim_measure_begin(s);
        e = s->hev[0];
        s->ev[e].pos = AC_SIM_NIL; /* the root is a hole until something is scheduled */
        s->hole = 1;
        s->now = t;
        switch (s->ev[e].kind) {
        case AC_SIM_EV_NODE: {
            ac_sim_node *n = &s->nodes[s->ev[e].node];
            n->ops->event(s, n, e);
            break;
        }
        case AC_SIM_EV_SOURCE: ac_sim_source_fire(s, s->ev[e].arg); break;
        case AC_SIM_EV_THINK: ac_sim_client_fire(s, s->ev[e].arg); break;
        case AC_SIM_EV_TIMEOUT: timeout_fire(s, e); break;
        case AC_SIM_EV_FAULT: ac_sim_faults_edge(s); break;
        default: ac_sim_fail(s, AC_EINVAL, "internal error: free event scheduled"); break;
        }
        if (s->hole)
            ac_sim_heap_fill_hole(s);
        if (s->status != 0) {
            s->events++;
            return s->status;
        }
        if (++s->events >= check) {
            if (s->event_cap != 0 && s->events > s->event_cap) {
                s->budget_hit = 1;
                ac_sim_fail(s, AC_ELIMIT, "event budget (max_events) exhausted");
                return s->status;
            }
            if (s->tick != NULL && (s->events & 0xffffu) == 0)
                s->tick(s, s->tick_ctx);
            check = ac_sim_next_check(s);
        }
    }
    return 0;
}

/* The events up to the horizon, or to the budget (s->event_cap: AC_ELIMIT, budget_hit; the
 * state stays whole, so ac_sim_state_resume may go on). The first call takes the fast loop of
 * fast.c when the model is one pool fed by one Poisson source (the same law and statistics);
 * that loop cannot be resumed (s->ran_fast). */
int ac_sim_state_advance(ac_sim_state *s)
{
    if (s->events == 0 && ac_sim_fast_eligible(s)) {
        s->ran_fast = 1;
        return ac_sim_fast_run(s);
    }
    return run_events(s);
}

/* The end of a replication at the horizon: the measurement window opened if no event did,
 * every node's time averages closed at the horizon. */
void ac_sim_state_finish(ac_sim_state *s)
{
    if (!s->measuring)
        ac_sim_measure_begin(s);
    s->now = s->horizon;
    for (size_t i = 0; i < s->nnodes; i++) {
        ac_sim_node *n = &s->nodes[i];
        if (n->ops->touch != NULL)
            n->ops->touch(s, n);
        else
            ac_sim_node_touch(s, n);
    }
}

/* Run one replication from time 0 to the horizon. */
int ac_sim_state_run(ac_sim_state *s)
{
    int rc = ac_sim_state_advance(s);
    if (rc == 0)
        ac_sim_state_finish(s);
    return rc;
}

/*
 * Can state s, advanced (not finished) with its horizon H and warm-up W, go on as the run
 * of (horizon, warmup) from time 0 with the same seed would? Its events so far are that
 * run's when they are all before the first difference: the horizon enters the law only by
 * cutting events beyond it (sources, scalers and fault edges are scheduled at most up to
 * it) except for a source with a profile, whose thinning draws stop at the horizon; the
 * warm-up only by the start of the measurement. So: a run that ended (status 0) with
 * (H, W) = (horizon, warmup); or one stopped by its budget in the generic loop with
 * horizon <= H (equal when a profile thins), no event past the horizon, and the same
 * warm-up or the measurement not yet begun and s->now < warmup. A shorter horizon also needs
 * every scheduled event at most at it and no fault edge from it on (the edges are listed at
 * setup, those before the horizon): then the run of (horizon, warmup) made the same
 * schedule calls, so its heap is the same one (the same order among equal times). Then 1: s
 * takes (horizon, warmup), errors go to err, and ac_sim_state_advance goes on. Else 0 (s
 * unchanged).
 */
int ac_sim_state_resume(ac_sim_state *s, double horizon, double warmup, ac_error *err)
{
    int profiled = 0;
    for (size_t i = 0; i < s->nentries; i++)
        profiled |= s->entries[i].profile != NULL;
    if (s->status == 0) {
        if (horizon != s->horizon || warmup != s->warmup)
            return 0;
    } else if (s->status != AC_ELIMIT || !s->budget_hit || s->ran_fast || horizon > s->horizon ||
               (profiled && horizon != s->horizon) || s->now > horizon ||
               (warmup != s->warmup && (s->measuring || !(s->now < warmup)))) {
        return 0;
    }
    for (size_t i = 0; i < s->nheap && horizon != s->horizon; i++)
        if (s->hkey[i] > horizon)
            return 0;
    for (size_t i = 0; i < s->nfault_edges && horizon != s->horizon; i++)
        if (s->fault_edges[i] >= horizon) /* the fresh run's edges are those before it */
            return 0;
    s->status = 0;
    s->budget_hit = 0;
    s->horizon = horizon;
    s->warmup = warmup;
    s->err = err;
    return 1;
}
