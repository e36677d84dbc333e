/*
 * archcheck: the in-memory model of one architecture file.
 *
 * The parser builds an ac_model from the XML format of doc/format.md; every
 * later module reads it. Plain C structs, no library types. All quantities are
 * in SI units: seconds for durations, per second for rates, fractions in
 * [0, 1] for probabilities. Every string and array is owned by the model and
 * released by ac_model_free.
 *
 * References between elements are resolved to indices into the model's
 * arrays (AC_NONE when absent). The ids are kept for messages.
 */
#ifndef ARCHCHECK_MODEL_H
#define ARCHCHECK_MODEL_H

#include <stddef.h>

#include "archcheck/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An absent index or an unbounded count. */
#define AC_NONE      ((size_t)-1)
#define AC_UNBOUNDED ((size_t)-1)

typedef enum ac_node_kind {
    AC_NODE_POOL = 0,
    AC_NODE_FUNCTION,
    AC_NODE_QUEUE,
    AC_NODE_GATEWAY
} ac_node_kind;

typedef enum ac_dispatch {
    AC_DISPATCH_RANDOM = 0,
    AC_DISPATCH_POWER_OF_D,
    AC_DISPATCH_JSQ,
    AC_DISPATCH_JIQ,
    AC_DISPATCH_SHARED_QUEUE
} ac_dispatch;

typedef enum ac_sampling { AC_SAMPLING_DISTINCT = 0, AC_SAMPLING_WITH_REPLACEMENT } ac_sampling;

typedef enum ac_invocation { AC_INVOCATION_SYNC = 0, AC_INVOCATION_ASYNC } ac_invocation;

/* <autoscale>: an HPA-like autoscaler on a pool. */
typedef struct ac_autoscale {
    size_t min, max;           /* server bounds */
    double target_utilization; /* (0, 1] */
    double interval;           /* s, default 15 */
    double tolerance;          /* fraction, default 0.1 */
    double scale_up_delay;     /* s, default 30 */
    double cooldown;           /* s, default 300 */
    ac_loc loc;
} ac_autoscale;

/* <pool>: N identical exponential servers behind one dispatcher. */
typedef struct ac_pool {
    size_t servers;      /* N >= 1 (the starting count with autoscale) */
    double service_rate; /* mu, per second, > 0 */
    ac_dispatch dispatch;
    size_t d; /* servers sampled by power-of-d, >= 2; default 2 */
    ac_sampling sampling;
    size_t buffer;  /* jobs per server incl. the one in service; AC_UNBOUNDED if none.
                       With shared-queue: jobs waiting in the shared queue. */
    double timeout; /* s; 0 when there is none */
    size_t retries; /* default 0 */
    int has_autoscale;
    ac_autoscale autoscale;
} ac_pool;

/* <function>: a serverless function. */
typedef struct ac_function {
    size_t concurrency; /* default 1000 */
    double duration;    /* s, mean warm execution time, > 0 */
    double cold_start;  /* s, default 0 */
    double keep_alive;  /* s, default 600 */
    double scale_rate;  /* instances per second, default 100 */
    size_t scale_burst; /* scale tokens the bucket holds (format extension, doc/format.md);
                           0: the default max(1, scale_rate); see ac_function_scale_depth */
    double timeout;     /* s, default 3 */
    size_t retries;     /* default 0 (sync) or 2 (async) */
    int retries_given;  /* 1 when the file set `retries` */
    ac_invocation invocation;
    double fail_prob; /* default 0 */
    /* Set only by mitigations (ac_model_apply_mitigation); the format has no attribute for
       them, so a parsed model has 0 here. */
    size_t provisioned;      /* provisioned-concurrency: instances always initialised */
    size_t prewarm;          /* pre-warming: instances kept warm by pings */
    double prewarm_interval; /* pre-warming: s between pings (0 without pre-warming) */
} ac_function;

/* The depth of a function's scale-token bucket (doc/serverless.md): `scale-burst`, else
 * max(1, scale-rate) (one second of starts). */
static inline double ac_function_scale_depth(const ac_function *f)
{
    if (f->scale_burst > 0)
        return (double)f->scale_burst;
    return f->scale_rate > 1.0 ? f->scale_rate : 1.0;
}

/* <queue>: a message queue (SQS-like). */
typedef struct ac_queue {
    size_t capacity;           /* AC_UNBOUNDED by default */
    size_t batch_size;         /* default 10 */
    size_t max_consumers;      /* default 1000 */
    double visibility_timeout; /* s, default 30 */
    size_t max_receives;       /* default 5 */
} ac_queue;

/* <gateway>: an API gateway with a token bucket. */
typedef struct ac_gateway {
    double rate_limit; /* per second; INFINITY when unbounded (default) */
    size_t burst;      /* token-bucket depth, default 1; the models use max(burst, 1) */
    double timeout;    /* s, default 29 */
} ac_gateway;

typedef struct ac_node {
    char *id;
    char *label; /* NULL when absent */
    ac_node_kind kind;
    ac_loc loc;
    union {
        ac_pool pool;
        ac_function function;
        ac_queue queue;
        ac_gateway gateway;
    } u;
} ac_node;

/* <route>: after a job completes at `from` it goes on to `to`. */
typedef struct ac_route {
    size_t from, to; /* node indices */
    double p;        /* default 1 */
    size_t fanout;   /* default 1 */
    size_t fanin;    /* default 1 */
    int parallel;    /* default 0 */
    char *label;
    ac_loc loc;
} ac_route;

/* <link>: the network path carrying the routes from `from` to `to`. */
typedef struct ac_link {
    char *id; /* NULL when absent */
    char *label;
    size_t from, to;
    double capacity; /* per second; INFINITY when unbounded (default) */
    double latency;  /* s, default 0 */
    size_t buffer;   /* AC_UNBOUNDED by default */
    ac_loc loc;
} ac_link;

/* <source>: an open stream of requests. */
typedef struct ac_source {
    char *id;
    char *label;
    size_t to;      /* node index */
    double rate;    /* per second */
    double scv;     /* default 1 (Poisson) */
    size_t profile; /* index into profiles, AC_NONE if none */
    ac_loc loc;
} ac_source;

/* <population>: a closed workload of `size` clients. */
typedef struct ac_population {
    char *id;
    char *label;
    size_t to;
    size_t size;
    double think_time; /* s */
    ac_loc loc;
} ac_population;

typedef struct ac_profile_point {
    double at;   /* s, increasing from 0 */
    double rate; /* per second */
    ac_loc loc;
} ac_profile_point;

/* <profile>: a source's rate over time, linear between points. */
typedef struct ac_profile {
    size_t source; /* index into sources */
    int repeat;
    ac_profile_point *points;
    size_t npoints; /* >= 2 */
    char *label;
    ac_loc loc;
} ac_profile;

typedef enum ac_mitigation_kind {
    AC_MIT_PROVISIONED_CONCURRENCY = 0,
    AC_MIT_PRE_WARMING,
    AC_MIT_SNAPSTART,
    AC_MIT_ADD_SERVERS,
    AC_MIT_RATE_LIMIT,
    AC_MIT_RETRY_BUDGET,
    AC_MIT_SET,
    AC_MIT_COMBINE
} ac_mitigation_kind;

/* <mitigation>: a proposed change. Only the fields of its kind are meaningful. */
typedef struct ac_mitigation {
    char *id;
    char *label;
    ac_mitigation_kind kind;
    size_t target;   /* node index; AC_NONE for combine */
    size_t amount;   /* provisioned-concurrency, pre-warming, add-servers */
    double interval; /* pre-warming, s, default 300 */
    double restore;  /* snapstart, s */
    double rate;     /* rate-limit, per second */
    size_t burst;    /* rate-limit, default 1 (as a gateway's) */
    double ratio;    /* retry-budget */
    char *attribute; /* set */
    char *value;     /* set: the raw value, checked against the attribute's type */
    size_t *of;      /* combine: mitigation indices */
    size_t nof;
    ac_loc loc;
} ac_mitigation;

/* A LOW..HIGH range inside <faults>; `present` is 0 when the attribute is absent. */
typedef struct ac_range {
    int present;
    double lo, hi;
} ac_range;

/* <fault>: one dimension block of the fault space. */
typedef struct ac_fault {
    size_t target;          /* node or link: see target_is_link */
    int target_is_link;     /* 1 when target indexes links */
    ac_range delay;         /* s */
    ac_range fail_prob;     /* probability */
    ac_range servers_down;  /* count */
    ac_range capacity_loss; /* probability */
    ac_range cold_start;    /* s */
    ac_range at;            /* s; absent: 0 */
    ac_range duration;      /* the `for` attribute, s; absent: the whole horizon */
    char *label;
    ac_loc loc;
} ac_fault;

typedef enum ac_metric {
    AC_METRIC_ERROR_RATE = 0,
    AC_METRIC_THROTTLE_RATE,
    AC_METRIC_P95_LATENCY,
    AC_METRIC_P99_LATENCY,
    AC_METRIC_LOSS,
    AC_METRIC_BACKLOG_DURATION,
    AC_METRIC_UTILIZATION
} ac_metric;

/* <term> of an <objective>. */
typedef struct ac_term {
    ac_metric metric;
    size_t target; /* node index, AC_NONE for end to end */
    double weight; /* as written; normalise before use */
    double norm;   /* in the metric's unit (s for latencies and durations); 0 if absent */
    ac_loc loc;
} ac_term;

typedef struct ac_faults {
    int present;
    size_t budget; /* 0 when absent */
    int has_budget;
    unsigned long seed;
    int has_seed;
    ac_fault *items;
    size_t count;
    int has_objective;
    double tau; /* default 0.7 */
    ac_term *terms;
    size_t nterms;
    ac_loc loc;
    ac_loc objective_loc;
} ac_faults;

typedef enum ac_req_kind {
    AC_REQ_LATENCY = 0,
    AC_REQ_UTILIZATION,
    AC_REQ_LOSS,
    AC_REQ_THROUGHPUT,
    AC_REQ_HEADROOM,
    AC_REQ_RECOVERY,
    AC_REQ_SCALING,
    AC_REQ_RESILIENCE
} ac_req_kind;

/* One requirement. Fields not used by its kind are 0. */
typedef struct ac_requirement {
    ac_req_kind kind;
    size_t target;           /* node index, AC_NONE: end to end */
    double percentile;       /* latency: in (0, 100); 0 means the mean */
    double max;              /* latency (s), utilization, loss, recovery (s) */
    double min;              /* throughput (/s), headroom (factor), resilience min-boundary (/s) */
    size_t max_events;       /* scaling; AC_UNBOUNDED when absent */
    double max_server_hours; /* scaling, hours; INFINITY when absent */
    double tau;              /* resilience, default 0.7 */
    size_t mitigation;       /* resilience: mitigation index, AC_NONE: baseline */
    char *label;
    ac_loc loc;
} ac_requirement;

/* <suppress>. */
typedef struct ac_suppression {
    char rule[8];
    size_t target; /* node index, AC_NONE: everywhere */
    char *reason;
    ac_loc loc;
} ac_suppression;

typedef struct ac_model {
    char *file; /* the path as given */
    char *name; /* the architecture's name, NULL if absent */
    char *label;
    ac_loc loc; /* of the root element */

    ac_node *nodes;
    size_t nnodes;
    ac_route *routes;
    size_t nroutes;
    ac_link *links;
    size_t nlinks;
    ac_source *sources;
    size_t nsources;
    ac_population *populations;
    size_t npopulations;
    ac_profile *profiles;
    size_t nprofiles;
    ac_mitigation *mitigations;
    size_t nmitigations;
    ac_faults faults;
    ac_requirement *requirements;
    size_t nrequirements;
    ac_suppression *suppressions;
    size_t nsuppressions;
} ac_model;

/* Free a model and everything it owns. NULL is a no-op. */
void ac_model_free(ac_model *model);

/*
 * A deep copy of `model`: every string and array is duplicated, so the copy outlives the
 * original (ac_loc.file pointers are borrowed from the same place as the original's: the path
 * given to the parser). On success returns 0 and *out is the copy (free with ac_model_free);
 * AC_ENOMEM otherwise (*out NULL).
 */
int ac_model_clone(const ac_model *model, ac_model **out, ac_error *err);

/*
 * Change `model` as mitigation `mitigation` (an index into model->mitigations) would, so that
 * analysing the changed model evaluates the mitigation (doc/format.md, <mitigation>):
 *   add-servers              servers += amount (and autoscale max += amount when present)
 *   set                      the attribute takes the value (parsed as the parser does)
 *   rate-limit               on a gateway: rate_limit and burst; on any other node: not
 *                            modelled (AC_EINVAL)
 *   retry-budget             retries := min(retries, ceil(ratio)) (a conservative bound on
 *                            the load; see parser/model_ops.c)
 *   snapstart                cold_start := restore
 *   provisioned-concurrency  function.provisioned := amount (must not exceed concurrency)
 *   pre-warming              function.prewarm := amount, prewarm_interval := interval
 *   combine                  each part in order
 * `note` (may be NULL) receives a description of every change, "; "-separated
 * ("pool 'db': servers 8 -> 10"), or why the mitigation could not be applied. Returns 0,
 * AC_EINVAL (not applicable or not modelled: err says why; the model may be partly changed
 * by a combine, so apply to a clone), or AC_ENOMEM.
 */
int ac_model_apply_mitigation(ac_model *model, size_t mitigation, char *note, size_t note_size,
                              ac_error *err);

/* The rate (per second) of a profile at time t (s): linear between its points, held after
 * the last one, or periodic with the last point's time as period when `repeat`. When `slope`
 * is not NULL it receives the rate's derivative there (per second squared; 0 where the rate
 * is held). */
double ac_profile_rate(const ac_profile *profile, double t, double *slope);

/* The index of the node with this id, or AC_NONE. */
size_t ac_model_find_node(const ac_model *model, const char *id);

/* Names of enum values as written in the format ("power-of-d", "pool", ...). */
const char *ac_node_kind_name(ac_node_kind kind);
const char *ac_dispatch_name(ac_dispatch dispatch);
const char *ac_mitigation_kind_name(ac_mitigation_kind kind);
const char *ac_metric_name(ac_metric metric);
const char *ac_req_kind_name(ac_req_kind kind);

#ifdef __cplusplus
}
#endif

#endif
