/*
 * The simulator's shared state (internal to sim/; GSL types stay here).
 *
 * One `ac_sim_state` is one replication: built from the model, run, reduced
 * to per-replication KPIs, freed. Everything that changes during the run lives
 * in index-addressed pools that grow by doubling (amortised, never per event):
 * jobs, events, request/fan-out groups. Because a pool may move when it grows,
 * code holds INDICES across any call that can allocate, never pointers.
 *
 * Event core: a binary min-heap of (time, event index). Events are objects:
 * the persistent ones (a source's next arrival, a server's completion, a
 * client's think time) are allocated once and pushed again and again; the
 * transient ones (timeouts, link deliveries) come from a free list.
 *
 * Node kinds plug in through `ac_sim_node_ops` (a vtable): `arrive` offers a
 * job to the node (return 0 to refuse: the job is lost), `event` handles an
 * EV_NODE event the node scheduled. A node hands a finished job back to the
 * core with ac_sim_job_done (routes it on) or ac_sim_job_forward (a link).
 *
 * Adding a node kind (function, queue, gateway): a state struct in the union
 * of ac_sim_node, an ops table, a setup function called from
 * ac_sim_state_new, and its acceptance in ac_sim_model_check. Timeouts,
 * retries, routing, requests and statistics come from the core.
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

#define AC_SIM_NIL UINT32_MAX

/* Response-time histogram: 256 bins per octave from 2^-30 s to 2^34 s. The
 * bin of x is read off the bits of the double (exponent and top 8 mantissa
 * bits), so it costs no logarithm. */
#define AC_SIM_HIST_SUB_BITS 8
#define AC_SIM_HIST_MIN_EXP (-30)
#define AC_SIM_HIST_MAX_EXP 34
#define AC_SIM_HIST_BINS                                                                           \
    ((size_t)(AC_SIM_HIST_MAX_EXP - AC_SIM_HIST_MIN_EXP) << AC_SIM_HIST_SUB_BITS)

typedef enum ac_sim_ev_kind {
    AC_SIM_EV_FREE = 0,
    AC_SIM_EV_SOURCE,  /* arg: source index */
    AC_SIM_EV_THINK,   /* arg: population client index */
    AC_SIM_EV_NODE,    /* node: node index; arg, sub: the node's own */
    AC_SIM_EV_TIMEOUT  /* arg: job index */
} ac_sim_ev_kind;

typedef struct ac_sim_event {
    uint32_t pos;  /* heap position; AC_SIM_NIL when not scheduled */
    uint32_t node; /* EV_NODE: node; free list: next free */
    uint32_t arg;
    uint8_t kind;
    uint8_t sub;
} ac_sim_event;

typedef struct ac_sim_heap_item {
    double t;
    uint32_t ev;
} ac_sim_heap_item;

typedef struct ac_sim_job {
    double t_arrive;  /* arrival of this attempt at its current node */
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
    uint32_t entry;  /* root: source (or nsources + population) index */
    uint32_t client; /* root of a population: client index, else AC_SIM_NIL */
    uint8_t failed;
    uint32_t next_free;
} ac_sim_group;

/* Counters of one node or entry over the measurement window. */
typedef struct ac_sim_counts {
    double area_jobs, area_busy, last_t;
    uint64_t attempts, first, lost, timeouts, retries, failures, completions, failed_requests;
    double sum_resp;
    uint64_t *hist; /* AC_SIM_HIST_BINS */
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
} ac_sim_node_ops;

typedef struct ac_sim_pool_state {
    double mean_service; /* 1 / mu */
    ac_dispatch dispatch;
    size_t d;
    int with_replacement;
    size_t buffer;      /* AC_UNBOUNDED or K */
    uint32_t *len;      /* jobs per server */
    uint32_t *head, *tail;
    uint32_t *cev;      /* completion event per server */
    uint32_t *perm;     /* power-of-d distinct: a permutation of the servers */
    /* jsq / jiq: servers sorted by length; first[l] = servers with len < l */
    uint32_t *order, *pos, *first;
    size_t nfirst;
    /* shared-queue */
    uint32_t q_head, q_tail;
    size_t q_len;
    uint32_t *serving; /* job in service per server */
    uint32_t *idle;    /* stack of idle servers */
    size_t nidle;
} ac_sim_pool_state;

typedef struct ac_sim_link_state {
    double tx_time; /* 1 / capacity; 0 when unbounded */
    double latency;
    size_t buffer;  /* waiting jobs, AC_UNBOUNDED or count */
    uint32_t q_head, q_tail;
    size_t q_len;
    uint32_t busy_job; /* job in transmission, AC_SIM_NIL if idle */
    uint32_t tx_ev;
    uint32_t to;       /* destination node */
} ac_sim_link_state;

/* A route, compiled. */
typedef struct ac_sim_route {
    uint32_t to;     /* node index */
    uint32_t via;    /* node index of the link node, or AC_SIM_NIL */
    uint32_t fanout, fanin;
    uint32_t join;   /* ordinal among fan-in routes, AC_SIM_NIL if fanin == 1 */
} ac_sim_route;

struct ac_sim_node {
    const ac_sim_node_ops *ops;
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
    /* state for the time averages */
    uint64_t njobs, nbusy;
    ac_sim_counts c;
    union {
        ac_sim_pool_state pool;
        ac_sim_link_state link;
    } u;
};

/* Per source / population. */
typedef struct ac_sim_entry {
    uint32_t to;
    double rate;     /* scaled */
    double scv;
    int is_population;
    /* renewal: H2 */
    double h2_p1, h2_mean1, h2_mean2;
    /* profile (NHPP) */
    const ac_profile *profile;
    double scale;    /* load scale for the profile */
    double lambda_max;
    uint32_t ev;     /* source: its arrival event */
    /* population */
    size_t size;
    double think;
    uint32_t first_client; /* clients' events are consecutive */
    ac_sim_counts c;
} ac_sim_entry;

struct ac_sim_state {
    const ac_model *model;
    const ac_sim_options *opt;
    gsl_rng *rng;
    double now, warmup, horizon;
    int measuring;
    int status;
    ac_error *err;
    uint64_t events;
    uint64_t event_cap; /* stop with AC_ELIMIT beyond this; 0: none */

    ac_sim_heap_item *heap;
    size_t nheap;
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
};

/* core.c */
int ac_sim_state_new(const ac_model *model, const ac_sim_options *opt, double horizon,
                     double warmup, unsigned long long seed, ac_sim_state **out, ac_error *err);
void ac_sim_state_free(ac_sim_state *s);
int ac_sim_state_run(ac_sim_state *s);
uint32_t ac_sim_event_alloc(ac_sim_state *s);
void ac_sim_event_release(ac_sim_state *s, uint32_t ev);
void ac_sim_event_schedule(ac_sim_state *s, uint32_t ev, double t);
void ac_sim_event_cancel(ac_sim_state *s, uint32_t ev);
uint32_t ac_sim_job_alloc(ac_sim_state *s);
void ac_sim_job_release(ac_sim_state *s, uint32_t job);
void ac_sim_job_done(ac_sim_state *s, ac_sim_node *n, uint32_t job);
void ac_sim_job_forward(ac_sim_state *s, ac_sim_node *n, uint32_t job, uint32_t to);
void ac_sim_counts_record(ac_sim_counts *c, double t);
void ac_sim_fail(ac_sim_state *s, int code, const char *msg);
void ac_sim_request_start(ac_sim_state *s, uint32_t entry, uint32_t client);
void ac_sim_job_arm_initial(ac_sim_state *s, ac_sim_node *n, uint32_t job);
int ac_sim_model_check(const ac_model *model, const ac_sim_options *opt, ac_error *err);

/* workload.c */
int ac_sim_entries_setup(ac_sim_state *s);
void ac_sim_source_fire(ac_sim_state *s, uint32_t src);
void ac_sim_client_fire(ac_sim_state *s, uint32_t client);
void ac_sim_client_done(ac_sim_state *s, uint32_t client);
double ac_sim_profile_rate(const ac_profile *p, double scale, double t);
double ac_sim_timescale(const ac_model *model);

/* pool.c, link.c */
extern const ac_sim_node_ops ac_sim_pool_ops;
extern const ac_sim_node_ops ac_sim_link_ops;
int ac_sim_pool_setup(ac_sim_state *s, ac_sim_node *n, const ac_pool *pool);
int ac_sim_link_setup(ac_sim_state *s, ac_sim_node *n, const ac_link *link);

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
    AC_SIM_K_COUNT
};
typedef struct ac_sim_welford {
    double mean, m2;
    size_t n;
} ac_sim_welford;
void ac_sim_welford_add(ac_sim_welford *w, double x);
void ac_sim_welford_estimate(const ac_sim_welford *w, ac_sim_estimate *out);
double ac_sim_hist_quantile(const uint64_t *hist, uint64_t n, double q);
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

/* Accumulate the time averages of node n up to now. */
static inline void ac_sim_node_touch(const ac_sim_state *s, ac_sim_node *n)
{
    double dt = s->now - n->c.last_t;
    n->c.area_jobs += dt * (double)n->njobs;
    n->c.area_busy += dt * (double)n->nbusy;
    n->c.last_t = s->now;
}

#endif
