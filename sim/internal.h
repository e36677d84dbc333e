/*
 * The simulator's shared state (internal to sim/; GSL types stay here).
 *
 * One `ac_sim_state` is one replication: built from the model, run, reduced
 * to per-replication KPIs, freed. Everything that changes during the run lives
 * in index-addressed pools that grow by doubling (amortised, never per event):
 * jobs, events, request/fan-out groups. Because a pool may move when it grows,
 * code holds INDICES across any call that can allocate, never pointers.
 *
 * Event core: a 4-ary min-heap of (time, event index) with replace-top. Events are objects:
 * the persistent ones (a source's next arrival, a server's completion, a
 * client's think time) are allocated once and pushed again and again; the
 * transient ones (timeouts, link deliveries) come from a free list.
 *
 * Node kinds plug in through `ac_sim_node_ops` (a vtable): `arrive` offers a
 * job to the node (return 0 to refuse: the job is lost), `event` handles an
 * EV_NODE event the node scheduled. A node hands a finished job back to the
 * core with ac_sim_job_done (routes it on) or ac_sim_job_forward (a link).
 *
 * Adding a node kind: a state struct in the union of ac_sim_node, an ops
 * table, a setup function called from ac_sim_state_new, and its acceptance in
 * ac_sim_model_check. Timeouts, retries, routing, requests and statistics
 * come from the core.
 *
 * Serverless kinds (doc/serverless.md): function.c (instances, keep-alive,
 * scale tokens, throttling, sync / async / polled invocations), queue.c
 * (messages, batches, visibility timeout, dead letters; it polls its consumer
 * functions through ac_sim_function_can_poll / ac_sim_function_submit and
 * hears of every execution's end through ac_sim_queue_exec_done), gateway.c
 * (token bucket; the downstream work of an admitted request is a `scope`
 * group, timed for the 504 when it completes).
 */
#ifndef AC_SIM_INTERNAL_H
#define AC_SIM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "archcheck/error.h"
#include "archcheck/model.h"
#include "archcheck/sim.h"
#include "sim/rng.h"

#define AC_SIM_NIL UINT32_MAX

/* Response-time histogram: 256 bins per octave from 2^-30 s to 2^34 s. The
 * bin of x is read off the bits of the double (exponent and top 8 mantissa
 * bits), so it costs no logarithm. */
#define AC_SIM_HIST_SUB_BITS 8
#define AC_SIM_HIST_MIN_EXP  (-30)
#define AC_SIM_HIST_MAX_EXP  34
#define AC_SIM_HIST_BINS                                                                           \
    ((size_t)(AC_SIM_HIST_MAX_EXP - AC_SIM_HIST_MIN_EXP) << AC_SIM_HIST_SUB_BITS)

/* One octave (AC_SIM_HIST_SUB bins) per chunk, allocated at its first sample: a node that
 * never completes a job allocates nothing, and one whose response times span a few octaves
 * a few 2 KB chunks (instead of 128 KB for the whole range). `used` has bit o set when
 * octave o is allocated; a reset zeroes only those. */
#define AC_SIM_HIST_SUB     ((size_t)1 << AC_SIM_HIST_SUB_BITS)
#define AC_SIM_HIST_OCTAVES ((size_t)(AC_SIM_HIST_MAX_EXP - AC_SIM_HIST_MIN_EXP))
typedef struct ac_sim_hist {
    uint64_t *oct[AC_SIM_HIST_OCTAVES];
    uint64_t used;
    uint64_t n; /* samples */
} ac_sim_hist;

typedef enum ac_sim_ev_kind {
    AC_SIM_EV_FREE = 0,
    AC_SIM_EV_SOURCE,  /* arg: source index */
    AC_SIM_EV_THINK,   /* arg: population client index */
    AC_SIM_EV_NODE,    /* node: node index; arg, sub: the node's own */
    AC_SIM_EV_TIMEOUT, /* arg: job index */
    AC_SIM_EV_FAULT    /* an edge of a fault window (faults.c) */
} ac_sim_ev_kind;

typedef struct ac_sim_event {
    uint32_t pos;  /* heap position; AC_SIM_NIL when not scheduled */
    uint32_t node; /* EV_NODE: node; free list: next free */
    uint32_t arg;
    uint8_t kind;
    uint8_t sub;
} ac_sim_event;

typedef struct ac_sim_job {
    double t_arrive;  /* arrival at its current node: of the FIRST attempt (retries keep it) */
    uint32_t next;    /* FIFO link inside a node; free list */
    uint32_t group;   /* request or fan-out group; AC_SIM_NIL: none */
    uint32_t tmo_ev;  /* pending timeout event, AC_SIM_NIL if none */
    uint32_t node;    /* current node */
    uint32_t server;  /* server at a pool */
    uint32_t attempt; /* 0: first attempt at this node */
    uint8_t zombie;   /* timed out: finishes, then is discarded */
} ac_sim_job;

/* A request (a root group) or a fan-out group. `live` counts the group's jobs,
 * its jobs waiting at joins (`npending`, per fan-in route in the pending
 * array), and its child groups. */
typedef struct ac_sim_group {
    double t0;       /* root: arrival of the request */
    uint32_t parent; /* AC_SIM_NIL for a request */
    uint32_t live;
    uint32_t npending;
    uint32_t entry;  /* root: source (or nsources + population) index; scope: gateway node */
    uint32_t client; /* root of a population: client index, else AC_SIM_NIL */
    uint8_t failed;  /* root: AC_SIM_FAILED_* bits of the jobs of the request that failed */
    uint8_t scope;   /* 1: the downstream work of one request admitted by a gateway (t0: the
                        admission); transparent to joins */
    uint32_t next_free;
} ac_sim_group;

/* How a job of a request failed (ac_sim_group.failed): refused by a throttle (a function's
 * concurrency or scale rate, a gateway's 429) after its retries, or otherwise (an execution
 * failed or timed out, a full buffer, a queue's rejection or dead letter, a gateway's 504). */
#define AC_SIM_FAILED_ERROR    1u
#define AC_SIM_FAILED_THROTTLE 2u

/* Counters of one node or entry over the measurement window. Entries: failed_requests the
 * completed requests with a failed job, error_requests those with a job failed otherwise than
 * by a throttle (AC_SIM_FAILED_ERROR). */
typedef struct ac_sim_counts {
    double area_jobs, area_busy, area_extra, last_t;
    uint64_t attempts, first, lost, timeouts, retries, failures, completions, failed_requests;
    uint64_t error_requests;
    uint64_t execs, colds, dead, receives; /* functions: executions, cold starts; queues:
                                              dead letters, message receives */
    uint64_t timed;   /* completions whose time is in sum_resp and hist (entries: the
                         successful requests only) */
    uint64_t zombies; /* completions of timed-out copies (not passed downstream) */
    uint64_t scale_actions, scale_flaps; /* autoscaled pools (autoscale.c) */
    double sum_resp;
    ac_sim_hist hist;
} ac_sim_counts;

typedef struct ac_sim_state ac_sim_state;
typedef struct ac_sim_node ac_sim_node;

typedef struct ac_sim_node_ops {
    const char *name;
    /* Offer job `job` (its t_arrive set) to the node; 1: taken, 0: refused (lost). */
    int (*arrive)(ac_sim_state *s, ac_sim_node *n, uint32_t job);
    /* An EV_NODE event of this node fired (already off the heap). */
    void (*event)(ac_sim_state *s, ac_sim_node *n, uint32_t ev);
    /* Place `njobs` jobs at `server` at time 0 (initial state); 0 or AC_E*. */
    int (*place)(ac_sim_state *s, ac_sim_node *n, size_t server, size_t njobs);
    /* Free what setup allocated (the node itself is not freed); may be NULL. */
    void (*cleanup)(ac_sim_node *n);
    /* Close the time averages at s->now (end of the run); NULL: ac_sim_node_touch. */
    void (*touch)(ac_sim_state *s, ac_sim_node *n);
} ac_sim_node_ops;

/* What a node is (for the KPIs of its kind). */
typedef enum ac_sim_kind {
    AC_SIM_KIND_POOL = 0,
    AC_SIM_KIND_FUNCTION,
    AC_SIM_KIND_QUEUE,
    AC_SIM_KIND_GATEWAY,
    AC_SIM_KIND_LINK
} ac_sim_kind;

typedef struct ac_sim_pool_state {
    double mean_service; /* 1 / mu */
    ac_dispatch dispatch;
    size_t d;
    int with_replacement;
    size_t buffer; /* AC_UNBOUNDED or K */
    uint32_t *len; /* jobs per server */
    uint32_t *head, *tail;
    uint32_t *cev;  /* completion event per server */
    uint32_t *perm; /* power-of-d distinct: a permutation of the servers */
    /* jsq / jiq: servers sorted by length; first[l] = servers with len < l */
    uint32_t *order, *pos, *first;
    size_t nfirst;
    /* shared-queue */
    uint32_t q_head, q_tail;
    size_t q_len;
    uint32_t *serving; /* job in service per server */
    uint32_t *idle;    /* stack of idle servers */
    size_t nidle;
    /* faults (faults.c): s added to every service; servers down (they take no new job:
       per-server dispatch chooses among `up`, a shared-queue server parks when it ends) */
    double delay;
    uint8_t *down;   /* per server, NULL until a servers-down fault */
    uint32_t *downs; /* the down servers, in the order they went down */
    size_t ndown;
    uint32_t *up; /* the servers not down (nup of them) */
    size_t nup;
    /* the pool's autoscaler (autoscale.c) when ac_sim_options.autoscale; NULL: none. The
       pool then has max(servers, max) server slots, those not serving are `down` */
    struct ac_sim_scaler *sc;
} ac_sim_pool_state;

/* An HPA-like scaler of a pool (autoscale.c): its looks, pending orders (ready after the
 * scale-up delay), the recommendations of its cooldown window, and its log of changes of
 * the serving count (room grows by doubling). */
typedef struct ac_sim_scaler {
    const ac_autoscale *as;
    size_t slots;     /* server slots of the pool: max(servers, max) */
    size_t serving;   /* slots not down */
    size_t target;    /* serving + ordered */
    uint64_t k;       /* the next look is at k x interval */
    double t_look;    /* time of the last look */
    double busy_look; /* busy server-seconds from 0 to the last look */
    double busy_pre;  /* busy server-seconds from 0 to the warm-up (the counts restart) */
    uint32_t ev;      /* the scaler's event (EV_NODE, sub AC_SIM_POOL_EV_SCALER) */
    double *ord_t;    /* pending orders: FIFO of (ready time, count) */
    size_t *ord_n;
    size_t ord_head, ord_len, ord_cap;
    double *rec_t; /* recommendations of the cooldown window: FIFO of (time, count) */
    size_t *rec_n;
    size_t rec_head, rec_len, rec_cap;
    ac_sim_scaling_action *log; /* every change of the serving count, in time order */
    size_t nlog, log_cap;
} ac_sim_scaler;

enum { AC_SIM_POOL_EV_SERVICE = 0, AC_SIM_POOL_EV_SCALER = 1 };

typedef struct ac_sim_link_state {
    double tx_time; /* 1 / capacity; 0 when unbounded */
    double latency;
    size_t buffer; /* waiting jobs, AC_UNBOUNDED or count */
    uint32_t q_head, q_tail;
    size_t q_len;
    uint32_t busy_job; /* job in transmission, AC_SIM_NIL if idle */
    uint32_t tx_ev;
    uint32_t to; /* destination node */
} ac_sim_link_state;

/* One execution of a function (running, or waiting in the function's FIFO):
 * its jobs (one for a sync or async attempt; one per message of the batch for
 * a polled execution) are linked by job.next. Records are pooled with their
 * end event. */
typedef struct ac_sim_fexec {
    uint32_t ev;   /* end event (persistent, sub FN_EXEC, arg: this record) */
    uint32_t jobs; /* first job */
    uint32_t njobs;
    uint32_t queue;    /* polling queue node, or AC_SIM_NIL */
    uint32_t delivery; /* that queue's delivery */
    uint32_t next;     /* FIFO / free list */
    uint8_t prov;      /* runs on a provisioned instance */
    uint8_t ok;        /* outcome, drawn at the start */
} ac_sim_fexec;

typedef struct ac_sim_function_state {
    double duration, cold_start, keep_alive, scale_rate, depth, timeout, fail_prob;
    double delay; /* s added to every execution (a fault, faults.c) */
    int async;
    /* instances: busy ones are n->nbusy; idle provisioned; idle on-demand in a ring
       ordered by the time they became idle (bottom: oldest, top: most recent) */
    size_t prov_idle;
    double *idle_t;
    size_t idle_cap, idle_head, idle_len;
    double tokens, t_tokens; /* scale-token bucket at t_tokens */
    size_t prewarm;
    double prewarm_interval;
    uint32_t exp_ev, tok_ev, pw_ev;
    ac_sim_fexec *ex;
    size_t nex_cap;
    uint32_t ex_free;
    uint32_t w_head, w_tail; /* FIFO of executions waiting for an instance */
    size_t w_len;
    uint32_t *pollers; /* queues with a route to this function */
    size_t npollers;
} ac_sim_function_state;

/* A queue's delivery: a batch of messages (linked by job.next) received at
 * t_receive, with its executions. While it waits for its visibility timeout (state OPEN or
 * FAILED) it is in the queue's list of such deliveries, in receive order (prev, next). */
typedef struct ac_sim_delivery {
    double t_receive;
    uint32_t prev, next; /* the visibility list; AC_SIM_NIL at its ends */
    uint32_t msgs;
    uint32_t nmsgs;
    uint32_t pending; /* executions not yet succeeded */
    uint32_t running; /* executions not yet ended */
    uint32_t next_free;
    uint8_t state; /* AC_SIM_DLV_* */
} ac_sim_delivery;

enum { AC_SIM_DLV_OPEN = 0, AC_SIM_DLV_DONE, AC_SIM_DLV_FAILED, AC_SIM_DLV_SETTLED };

typedef struct ac_sim_queue_state {
    size_t capacity, batch, max_consumers, max_receives;
    double visibility;
    size_t visible; /* visible messages (held ones: n->njobs; running executions: n->nbusy) */
    uint32_t f_head, f_tail; /* never-received messages, FIFO (oldest first) */
    size_t f_len;
    uint32_t *rheap; /* messages visible again: a min-heap by arrival time */
    size_t rlen, rcap;
    ac_sim_delivery *dl;
    size_t ndl_cap;
    uint32_t dl_free;
    /* the deliveries waiting for their visibility timeout, oldest first: every one has the
       same V, so their deadlines are in this order and ONE event (vis_ev) follows the
       oldest's, lazily (a delivery that succeeds leaves the list, the event stays) */
    uint32_t vis_head, vis_tail, vis_ev;
    uint32_t *targets; /* consumer functions (route targets), each once */
    size_t ntargets;
    size_t per_delivery; /* the most executions one delivery makes */
    uint32_t *scratch;   /* per message of a batch: its route target group */
    uint8_t *absorbed;
    int polling;
} ac_sim_queue_state;

typedef struct ac_sim_gateway_state {
    double rate;    /* INFINITY: unbounded */
    double depth;   /* max(burst, 1) */
    double timeout; /* 504 beyond this */
    double tokens, t_tokens;
} ac_sim_gateway_state;

/* A route, compiled. */
typedef struct ac_sim_route {
    uint32_t to;  /* node index */
    uint32_t via; /* node index of the link node, or AC_SIM_NIL */
    uint32_t fanout, fanin;
    uint32_t join; /* ordinal among fan-in routes, AC_SIM_NIL if fanin == 1 */
} ac_sim_route;

struct ac_sim_node {
    const ac_sim_node_ops *ops;
    ac_sim_kind kind;
    uint32_t index;
    size_t servers;
    double timeout; /* 0: none */
    size_t retries;
    /* routing: parallel routes, then choice routes with cumulative p */
    uint32_t *par;
    size_t npar;
    uint32_t *choice;
    double *cum;
    size_t nchoice;
    int sure;      /* 1: one choice route, of p 1 (taken without a draw) */
    uint32_t cont; /* the node's only route when it is sure and one to one (fan-out and
                      fan-in 1): a finished job goes on along it as the same job (no draw,
                      no new job); AC_SIM_NIL otherwise */
    /* state for the time averages (nextra: alive instances of a function, 1 while a
       queue has a visible message) */
    uint64_t njobs, nbusy, nextra;
    ac_sim_counts c;
    union {
        ac_sim_pool_state pool;
        ac_sim_link_state link;
        ac_sim_function_state fn;
        ac_sim_queue_state q;
        ac_sim_gateway_state gw;
    } u;
};

/* Per source / population. */
typedef struct ac_sim_entry {
    uint32_t to;
    double rate;     /* scaled */
    double mean_gap; /* 1 / rate (rate > 0) */
    double scv;
    int is_population;
    /* renewal: H2 */
    double h2_p1, h2_mean1, h2_mean2;
    /* profile (NHPP) */
    const ac_profile *profile;
    double scale; /* load scale for the profile */
    double lambda_max;
    uint32_t ev; /* source: its arrival event */
    /* population */
    size_t size;
    double think;
    uint32_t first_client; /* clients' events are consecutive */
    ac_sim_counts c;
} ac_sim_entry;

/* Items (routes or links) grouped by node in compressed sparse rows: those of node i are
 * idx[start[i]] .. idx[start[i + 1] - 1], in index order (routes.c). */
typedef struct ac_sim_csr {
    size_t *start; /* nnodes + 1 */
    size_t *idx;
} ac_sim_csr;

/* The model's routes by their `from` node and by their `to` node, its links by `from`. */
typedef struct ac_sim_graph {
    ac_sim_csr from, to, links;
} ac_sim_graph;

struct ac_sim_state {
    const ac_model *model;
    ac_sim_graph graph; /* the model's routes and links by node (routes.c) */
    const ac_sim_options *opt;
    gsl_rng *rng;     /* GSL view of the generator (for gsl_ran_gamma); its state is *fast */
    ac_sim_rng *fast; /* xoshiro256** state, owned by rng */
    ac_sim_zig zig;
    double now, warmup, horizon;
    int measuring;
    int status;
    ac_error *err;
    uint64_t events;
    uint64_t event_cap; /* stop with AC_ELIMIT beyond this; 0: none */
    int budget_hit;     /* 1: the run stopped at event_cap */
    int ran_fast;       /* 1: advanced by fast.c's loop (not resumable) */
    /* every 65,536 events (run.c's progress; NULL: none) */
    void (*tick)(const struct ac_sim_state *s, void *ctx);
    void *tick_ctx;

    double *hkey;  /* 4-ary min-heap (sim/heap.h): times */
    uint32_t *hev; /* and their events */
    size_t nheap;
    int hole; /* 1: heap[0] is the event firing now, already unscheduled */
    ac_sim_event *ev;
    size_t nev_cap;
    uint32_t ev_free;

    ac_sim_job *jobs;
    size_t njob_cap, njobs_live, max_jobs;
    uint32_t job_free;

    ac_sim_group *groups;
    uint32_t *pending; /* ngroup_cap * njoin */
    size_t ngroup_cap;
    uint32_t group_free;

    ac_sim_node *nodes; /* model nodes, then one per link */
    size_t nnodes, nmodel_nodes;
    ac_sim_route *routes;
    size_t nroutes;
    size_t njoin;
    uint32_t *batch; /* njoin: batching counters for jobs of no fan-out */

    ac_sim_entry *entries; /* sources, then populations */
    size_t nentries, nsources;
    uint32_t *client_ev; /* per population client: its think event */
    uint32_t *client_entry;
    size_t nclients;

    /* the fault plan of opt->faults (faults.c): the window edges in (0, horizon), sorted */
    double *fault_edges;
    size_t nfault_edges, next_fault_edge;
    uint32_t fault_ev;
};

/* core.c */
int ac_sim_state_new(const ac_model *model, const ac_sim_options *opt, double horizon,
                     double warmup, unsigned long long seed, ac_sim_state **out, ac_error *err);
void ac_sim_state_free(ac_sim_state *s);
int ac_sim_state_run(ac_sim_state *s);
int ac_sim_state_advance(ac_sim_state *s);
void ac_sim_state_finish(ac_sim_state *s);
int ac_sim_state_resume(ac_sim_state *s, double horizon, double warmup, ac_error *err);
uint32_t ac_sim_event_alloc(ac_sim_state *s);
void ac_sim_event_release(ac_sim_state *s, uint32_t ev);
/* ac_sim_event_schedule (sim/heap.h, inline): (re)schedule event ev at time t. */
void ac_sim_event_cancel(ac_sim_state *s, uint32_t ev);
uint32_t ac_sim_job_alloc(ac_sim_state *s);
void ac_sim_job_release(ac_sim_state *s, uint32_t job);
void ac_sim_job_done(ac_sim_state *s, ac_sim_node *n, uint32_t job);
void ac_sim_job_forward(ac_sim_state *s, ac_sim_node *n, uint32_t job, uint32_t to);
/* ac_sim_counts_record: inline, below. */
void ac_sim_fail(ac_sim_state *s, int code, const char *msg);
void ac_sim_request_start(ac_sim_state *s, uint32_t entry, uint32_t client);
void ac_sim_job_arm_initial(ac_sim_state *s, ac_sim_node *n, uint32_t job);
int ac_sim_model_check(const ac_model *model, const ac_sim_options *opt, ac_error *err);
/* Double the job pool (free list); 0 or AC_E* (status set). s->jobs may move. */
int ac_sim_jobs_grow(ac_sim_state *s);
/* Start of the measurement window (at s->warmup): every counter zeroed, time averages from
 * the warm-up on. */
void ac_sim_measure_begin(ac_sim_state *s);
/* The event count at which the loop next looks at the budget or the progress report. */
uint64_t ac_sim_next_check(const ac_sim_state *s);
/* Job j failed an attempt at node n and is offered to n again at once (attempt + 1, a
 * retry: counted; if refused, the core's retry loop goes on while n->retries last). */
void ac_sim_job_retry(ac_sim_state *s, ac_sim_node *n, uint32_t job);
/* Job j gives up at node n: counted as a failure there; its request fails. */
void ac_sim_job_give_up(ac_sim_state *s, ac_sim_node *n, uint32_t job);
/* Job j leaves the system; its request fails (nothing is counted at a node). */
void ac_sim_job_fail(ac_sim_state *s, uint32_t job);
/* Job j leaves the system quietly: its share of its request ends, not as a failure. */
void ac_sim_job_drop(ac_sim_state *s, uint32_t job);
/* Route r applied to one completion of group g: the fan-in (*absorbed = 1 when the
 * completion only waits at the join) and the fan-out; returns the group of the r->fanout
 * jobs to make, with their units already reserved (AC_SIM_NIL: no group). */
uint32_t ac_sim_route_target(ac_sim_state *s, const ac_sim_route *r, uint32_t g, int *absorbed);
/* route_target, then r->fanout new jobs delivered along r (through its link). */
void ac_sim_route_send(ac_sim_state *s, const ac_sim_route *r, uint32_t g);
/* Job j enters the downstream scope of gateway `node` (no-op when j has no group). */
void ac_sim_group_scope_enter(ac_sim_state *s, uint32_t job, uint32_t node);
void ac_sim_group_scope_leave(ac_sim_state *s, uint32_t job);
/* Mark the request of group g failed. */
void ac_sim_group_mark_failed(ac_sim_state *s, uint32_t g);

/* routes.c: the model's graph (its routes' from and to, its links' from, checked to be
 * below nnodes before), O(nodes + routes + links) */
/* 0 or AC_ENOMEM (out zeroed: ac_sim_graph_free is safe either way). */
int ac_sim_graph_new(const ac_model *m, ac_sim_graph *out);
void ac_sim_graph_free(ac_sim_graph *g);
void ac_sim_csr_free(ac_sim_csr *c);
/* The first link (in index order) from node `from` to node `to`, or AC_NONE. */
size_t ac_sim_graph_link(const ac_model *m, const ac_sim_graph *g, size_t from, size_t to);
/* A node on a cycle of instantaneous routes, or AC_NONE; *rc 0 or AC_ENOMEM. */
size_t ac_sim_instant_cycle(const ac_model *m, const ac_sim_graph *g, int *rc);
/* s->routes compiled (links as `via`, fan-in join ordinals) and every model node's parallel
 * and choice routes (cumulative p in route order). 0 or AC_ENOMEM. */
int ac_sim_routes_compile(ac_sim_state *s);

/* workload.c */
int ac_sim_entries_setup(ac_sim_state *s);
void ac_sim_source_fire(ac_sim_state *s, uint32_t src);
void ac_sim_client_fire(ac_sim_state *s, uint32_t client);
void ac_sim_client_done(ac_sim_state *s, uint32_t client);
double ac_sim_profile_rate(const ac_profile *p, double scale, double t);
double ac_sim_timescale(const ac_model *model);
double ac_sim_slow_timescale(const ac_model *model);
double ac_sim_settling_time(const ac_model *model);

/* fast.c: one pool fed by one Poisson source, simulated by a dedicated loop */
/* s (built, not yet run) is one pool of random or power-of-d dispatch without timeout,
 * retries, autoscaler, faults or initial jobs, fed by one Poisson source (scv 1, no
 * profile), and nothing scheduled but that source's first arrival. */
int ac_sim_fast_eligible(const ac_sim_state *s);
/* Run such an s to its horizon by the pool's jump chain: the law of run_events' sample path
 * (not its draws), the same counts of the node and of the entry; 0 or the error (status
 * set). s's heap is not usable afterwards. */
int ac_sim_fast_run(ac_sim_state *s);

/* pool.c, link.c */
extern const ac_sim_node_ops ac_sim_pool_ops;
extern const ac_sim_node_ops ac_sim_link_ops;
int ac_sim_pool_setup(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool);
int ac_sim_link_setup(ac_sim_state *s, ac_sim_node *n, const ac_link *link);

/* function.c, queue.c, gateway.c */
extern const ac_sim_node_ops ac_sim_function_ops;
extern const ac_sim_node_ops ac_sim_queue_ops;
extern const ac_sim_node_ops ac_sim_gateway_ops;
int ac_sim_function_setup(ac_sim_state *s, ac_sim_node *n, const ac_function *fn);
int ac_sim_queue_setup(ac_sim_state *s, ac_sim_node *n, const ac_queue *q);
int ac_sim_gateway_setup(ac_sim_state *s, ac_sim_node *n, const ac_gateway *gw);
/* Polling: can function fn start an execution now (no execution waiting, a free slot,
 * an idle instance or a scale token)? When only a token is missing, the function
 * schedules the moment it has one and then calls its pollers. */
int ac_sim_function_can_poll(ac_sim_state *s, ac_sim_node *fn);
/* A polled execution of the `njobs` jobs linked from `jobs` (each already allocated at
 * fn) for delivery `delivery` of queue node `queue`: started now or queued in the
 * function's FIFO (never throttled). 0, or AC_E* (status set). */
int ac_sim_function_submit(ac_sim_state *s, ac_sim_node *fn, uint32_t jobs, uint32_t njobs,
                           uint32_t queue, uint32_t delivery);
/* Is delivery d of queue q still open (its executions' results count)? */
int ac_sim_queue_delivery_open(const ac_sim_state *s, uint32_t q, uint32_t d);
/* An execution of delivery d of queue q ended, successfully when ok. */
void ac_sim_queue_exec_done(ac_sim_state *s, uint32_t q, uint32_t d, int ok);
/* Try to take batches now (a consumer may have room). */
void ac_sim_queue_poll(ac_sim_state *s, ac_sim_node *q);
/* Scope group g of a gateway completed: the request fails (504) when its downstream work
 * took longer than the gateway's timeout. */
void ac_sim_gateway_scope_done(ac_sim_state *s, uint32_t g);

/* faults.c: the fault plan of opt->faults (include/archcheck/sim.h) */
/* Check the plan against the model (the transient's rules); 0 or AC_EINVAL. */
int ac_sim_faults_check(const ac_model *model, const ac_sim_options *opt, ac_error *err);
/* After the nodes are set up: the faults active at time 0 applied, the first edge scheduled. */
int ac_sim_faults_setup(ac_sim_state *s);
/* The edge event fired: every node the plan touches set to the faults active now. */
void ac_sim_faults_edge(ac_sim_state *s);
/* A pool with servers down: the server an arriving job joins, among the `up` ones. */
uint32_t ac_sim_pool_choose_up(ac_sim_state *s, ac_sim_node *n);
void ac_sim_faults_cleanup(ac_sim_state *s);

/* autoscale.c: the pools' scalers when ac_sim_options.autoscale (include/archcheck/sim.h) */
/* The <autoscale> of pool node nd is simulable; 0 or AC_EINVAL. */
int ac_sim_autoscale_check(const ac_node *nd, ac_error *err);
/* The server slots pool `pool` needs: max(servers, max) when it is scaled, else servers. */
size_t ac_sim_autoscale_slots(const ac_sim_state *s, const ac_pool *pool);
/* After ac_sim_pool_setup of a scaled pool: the slots beyond the starting count down, the
 * first look scheduled. 0 or AC_E* (status set). */
int ac_sim_autoscale_setup(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool);
/* The scaler's event of pool n fired: ready orders serve, a look if due. */
void ac_sim_autoscale_event(ac_sim_state *s, ac_sim_node *n);
/* At the warm-up, before the counts restart: keep the busy time so far. */
void ac_sim_autoscale_measure(ac_sim_state *s);
void ac_sim_autoscale_free(ac_sim_scaler *sc);
/* faults.c: n's servers down set to `down` (idle first, busy ones drain; LIFO back up). */
void ac_sim_pool_set_down(ac_sim_state *s, ac_sim_node *n, size_t down);

/* stats.c */
/* KPI slots of one replication; NAN where undefined. */
enum {
    AC_SIM_K_ARRIVAL = 0,
    AC_SIM_K_THROUGHPUT,
    AC_SIM_K_UTIL,
    AC_SIM_K_JOBS,
    AC_SIM_K_LOSS,
    AC_SIM_K_RESP,
    AC_SIM_K_P50,
    AC_SIM_K_P95,
    AC_SIM_K_P99,
    AC_SIM_K_TIMEOUT,
    AC_SIM_K_RETRIES,
    AC_SIM_K_FAILURE,
    AC_SIM_K_COLD,
    AC_SIM_K_THROTTLE,
    AC_SIM_K_DEAD,
    AC_SIM_K_BACKLOG,
    AC_SIM_K_INSTANCES,
    AC_SIM_K_ATTEMPTS,     /* attempts/s, retries included */
    AC_SIM_K_ATTEMPT_LOSS, /* attempts refused / attempts */
    AC_SIM_K_ACTIONS,      /* autoscaled pools: changes of the serving count */
    AC_SIM_K_FLAPS,        /* autoscaled pools: reversals within a cooldown */
    AC_SIM_K_SERVER_SEC,   /* autoscaled pools: integral of the serving count, s */
    AC_SIM_K_ERROR,        /* entries: requests with a job failed, not throttled / requests */
    AC_SIM_K_COUNT
};
typedef struct ac_sim_welford {
    double mean, m2;
    size_t n;
    double count, trials; /* a counted proportion's events and trials, summed */
} ac_sim_welford;
void ac_sim_welford_add(ac_sim_welford *w, double x);
/* Add one replication's counts of a proportion (count events out of trials). */
void ac_sim_welford_count(ac_sim_welford *w, uint64_t count, uint64_t trials);
void ac_sim_welford_estimate(const ac_sim_welford *w, ac_sim_estimate *out);
double ac_sim_hist_quantile(const ac_sim_hist *h, uint64_t n, double q);
/* Count x more samples in bin b; 0 or AC_ENOMEM. */
int ac_sim_hist_add(ac_sim_hist *h, size_t b, uint64_t x);
/* Add every bin of `from` to `to`; 0 or AC_ENOMEM. */
int ac_sim_hist_merge(ac_sim_hist *to, const ac_sim_hist *from);
/* Zero the allocated octaves (keeping them). */
void ac_sim_hist_reset(ac_sim_hist *h);
void ac_sim_hist_free(ac_sim_hist *h);
void ac_sim_node_kpis(const ac_sim_node *n, double window, double out[AC_SIM_K_COUNT]);
void ac_sim_entry_kpis(const ac_sim_entry *e, double window, double out[AC_SIM_K_COUNT]);

static inline size_t ac_sim_hist_bin(double x)
{
    uint64_t bits;
    if (!(x >= 0x1p-30))
        return 0;
    if (x >= 0x1p34)
        return AC_SIM_HIST_BINS - 1;
    memcpy(&bits, &x, sizeof bits);
    return (size_t)((bits >> (52 - AC_SIM_HIST_SUB_BITS)) -
                    ((uint64_t)(1023 + AC_SIM_HIST_MIN_EXP) << AC_SIM_HIST_SUB_BITS));
}

/* The lower edge of histogram bin i. */
static inline double ac_sim_hist_edge(size_t i)
{
    uint64_t bits = ((uint64_t)i + ((uint64_t)(1023 + AC_SIM_HIST_MIN_EXP) << AC_SIM_HIST_SUB_BITS))
                    << (52 - AC_SIM_HIST_SUB_BITS);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Exponential of mean `mean` (ziggurat). */
static inline double ac_sim_exp(ac_sim_state *s, double mean)
{
    return mean * ac_sim_rng_exp1(s->fast, &s->zig);
}

/* Uniform on [0, 1). */
static inline double ac_sim_uniform(ac_sim_state *s)
{
    return ac_sim_rng_uniform(s->fast);
}

/* The server an arriving job joins under random or power-of-d dispatch (any other policy:
 * uniform) among all N servers, drawing from r: power-of-d with replacement takes the
 * shortest of d independent uniform draws (the first of equal ones), distinct ones a
 * partial Fisher-Yates shuffle of p->perm (kept between calls). pool.c and fast.c. */
static inline uint32_t ac_sim_pool_pick(ac_sim_rng *r, ac_sim_pool_state *p, size_t N)
{
    if (p->dispatch != AC_DISPATCH_POWER_OF_D)
        return ac_sim_rng_below(r, (uint32_t)N);
    if (p->with_replacement && p->d == 2) { /* the common case, unrolled: same draws */
        uint32_t a = ac_sim_rng_below(r, (uint32_t)N), b = ac_sim_rng_below(r, (uint32_t)N);
        return p->len[b] < p->len[a] ? b : a;
    }
    if (p->with_replacement) {
        uint32_t best = ac_sim_rng_below(r, (uint32_t)N);
        for (size_t k = 1; k < p->d; k++) {
            uint32_t c = ac_sim_rng_below(r, (uint32_t)N);
            if (p->len[c] < p->len[best])
                best = c;
        }
        return best;
    } else {
        size_t d = p->d < N ? p->d : N;
        uint32_t best = AC_SIM_NIL;
        for (size_t k = 0; k < d; k++) {
            size_t rr = k + ac_sim_rng_below(r, (uint32_t)(N - k));
            uint32_t c = p->perm[rr];
            p->perm[rr] = p->perm[k];
            p->perm[k] = c;
            if (best == AC_SIM_NIL || p->len[c] < p->len[best])
                best = c;
        }
        return best;
    }
}

/* Accumulate the time averages of node n up to now: the areas under its counts since its
 * last touch. A node is touched before each change of a count, often several times at one
 * instant (an execution's end, then the next start); those add dt = 0 to the areas and are
 * skipped (the same sums, bit for bit). */
static inline void ac_sim_node_touch(const ac_sim_state *s, ac_sim_node *n)
{
    double dt = s->now - n->c.last_t;
    if (dt == 0.0)
        return;
    /* the counts fit in 63 bits: a signed conversion is one instruction, an unsigned one a
       branch and several */
    n->c.area_jobs += dt * (double)(int64_t)n->njobs;
    n->c.area_busy += dt * (double)(int64_t)n->nbusy;
    n->c.area_extra += dt * (double)(int64_t)n->nextra;
    n->c.last_t = s->now;
}

/* Record one response time t in c (its histogram octave allocated at the first sample);
 * AC_ENOMEM sets s->status. */
static inline void ac_sim_counts_record(ac_sim_state *s, ac_sim_counts *c, double t)
{
    size_t b = ac_sim_hist_bin(t);
    uint64_t *oct = c->hist.oct[b >> AC_SIM_HIST_SUB_BITS];
    c->completions++;
    c->timed++;
    c->sum_resp += t;
    if (oct != NULL) {
        oct[b & (AC_SIM_HIST_SUB - 1)]++;
        c->hist.n++;
    } else if (ac_sim_hist_add(&c->hist, b, 1) != 0) {
        ac_sim_fail(s, AC_ENOMEM, "out of memory (histogram)");
    }
}

#include "sim/heap.h"

#endif
