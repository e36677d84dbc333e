/*
 * archcheck: the transient (fluid) model of an open network (doc/models.md §4, §5).
 *
 * One ODE system over the whole network: every node has its own fluid state, and the nodes
 * are coupled by their outflows routed by R_ij = p fanout / fanin:
 *   - a pool contributes its mean-field state q_j (ac_solver_pool_model, solver.h) with a
 *     fixed truncation; its outflow is dep_j = N_j mu_j min(q_j1, 1);
 *   - a function (<function>) its instances: busy (provisioned and on-demand), initialising
 *     (cold starts in progress), idle-warm through a chain of AC_TRANSIENT_KEEPALIVE_STAGES
 *     Erlang stages (the keep-alive), its scale tokens, its waiting attempts (async, polled)
 *     and its retries in back-off (async); its outflow is its successful requests;
 *   - a queue (<queue>) its visible messages, the messages in process and the failed ones
 *     waiting for the visibility timeout; its outflow is its deliveries (batches), which its
 *     consumer function polls (never throttled: undelivered messages stay visible);
 *   - a gateway (<gateway>) its token level; its outflow is the admitted requests.
 * The sources gamma(t) follow their <profile> (linear between its points, held after the
 * last; periodic with the last point's `at` as period when repeat="true"); a source without
 * a profile is constant. The equations and the approximations of each kind are at the top
 * of solver/transient_*.c, one file per kind (and doc/serverless.md gives the semantics).
 * Integrated with SUNDIALS CVODE's BDF with an exact dense Jacobian (analytic for the pools,
 * forward-mode differentiation of the flows for the serverless states) up to
 * AC_TRANSIENT_DENSE_MAX states (sparse LU, KLU: the pattern is seeded when the workspace is
 * built and fixed after its first evaluation, so that later evaluations allocate nothing;
 * an entry outside it is left out of Newton's matrix, which costs iterations, not accuracy),
 * with GSL's rkf45 (explicit, no Jacobian) above (noted).
 * Every integration counts its work (steps x states) against options.max_work (AC_ELIMIT
 * past it).
 *
 * Autoscaled pools (<autoscale>, format.md): the server count N_j(t) is piecewise constant,
 * changed by an HPA-like scaler that looks every `interval` (t = 0, I, 2I, ...) at the
 * instantaneous utilisation u = min(q_j1, 1) of the pool (the fluid busy fraction):
 *   - within tolerance (|u / target - 1| <= tolerance) it recommends the current target
 *     count (serving + ordered), else desired = ceil(N u / target) clamped to [min, max];
 *   - above the target count it orders the difference, which serves scale-up-delay later
 *     (the orders still pending are counted, so they are not ordered twice; and while some
 *     are pending, a scale-up is held if u N / (T target), the servers still starting
 *     counted idle as HPA counts unready pods, is within the tolerance, T = the target);
 *   - below, it scales down at once, but only to the highest recommendation of the past
 *     `cooldown` window (t - cooldown, t]; the starting count counts as recommended at t = 0;
 *     pending orders are cancelled first.
 * Between the scaler's events the ODE integrates with N fixed; at an event the driver is
 * restarted and the pool's state remapped: new servers start empty (q_k <- q_k N_old /
 * N_new), removed servers are the idle ones first (q_k <- q_k N_old / N_new as well; jobs
 * are conserved exactly, and a scale-down computed from the instantaneous utilisation never
 * removes more servers than are idle; should it, the least loaded busy servers go and
 * drain their jobs, counted as departed). Each change of the target count is one scaling
 * event; server-hours are int N dt / 3600 (exact: N is piecewise constant). Pre-warming
 * pings (<mitigation kind="pre-warming">) are events too: at t = 0, I, 2I, ... the
 * function's instances are topped up to the amount.
 *
 * Faults in time: a plan of ac_transient_eval (below). Links of finite capacity are fluid
 * nodes between their routes' nodes (ac_transient_link), with the delay and capacity-loss
 * faults. Not in the model (each noted in `note` when present): closed workloads
 * (<population>), a gateway's timeout (504).
 *
 * Units: seconds, jobs per second; mean jobs per server for pools, instances or messages for
 * the serverless stages.
 */
#ifndef ARCHCHECK_TRANSIENT_H
#define ARCHCHECK_TRANSIENT_H

#include <stddef.h>

#include "archcheck/error.h"
#include "archcheck/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest total ODE state integrated with BDF and a dense Jacobian (its LU is
 * O(dim^3) per refactorisation); larger systems use rkf45. */
#define AC_TRANSIENT_DENSE_MAX 2000

/* The default work budget of one evaluation: integration steps times states (the settling
 * of the start state is bounded apart). 2e7 is 274,000 steps of a 73-state model (one
 * evaluation of samples/serverless-pipeline.xml takes about 2,400) and a few seconds of
 * CPU at most. */
#define AC_TRANSIENT_MAX_WORK 2e7

/* The Erlang stages of a function's keep-alive: an idle instance is reclaimed after an
 * Erlang(k, k / keep-alive) time (mean keep-alive, coefficient of variation 1/sqrt(k)),
 * the fluid stand-in for the fixed delay of doc/serverless.md. */
#define AC_TRANSIENT_KEEPALIVE_STAGES 8

/* The relaxation time of the serverless stages' fluid mins, as a fraction of the node's
 * natural time (a function's mean execution T_e, a queue's processing time, a gateway's
 * bucket time burst / rate-limit): a stock held at a bound is drawn at most at stock / tau
 * (solver/transient_ode.c). The equilibria are exact (an exhausted bucket is empty, a full
 * function's busy count is its concurrency), but a stock that a flow passes through hovers
 * at flow x tau (a function's freed instances serve its demand at once instead, so none
 * stays idle under a steady load); in a transient a stock lags by a few tau. */
#define AC_TRANSIENT_RELAX 1e-2

/* When ac_analysis_run integrates the transient (ac_analysis_options.transient). */
typedef enum ac_transient_mode {
    AC_TRANSIENT_AUTO = 0, /* when the model has a <profile> and a requirement reads the
                              trajectories: scaling, or recovery from a burst (default) */
    AC_TRANSIENT_ALWAYS,   /* always (a model without profile needs options.horizon) */
    AC_TRANSIENT_NEVER
} ac_transient_mode;

typedef enum ac_transient_start {
    AC_TRANSIENT_START_STEADY = 0, /* the fixed point of the network at the rates of t = 0
                                      (reached from empty), as a system that has run at
                                      that load for long (default) */
    AC_TRANSIENT_START_EMPTY       /* every queue empty */
} ac_transient_start;

typedef struct ac_transient_options {
    double horizon; /* s; 0: the largest last point `at` of the profiles (required
                       when the model has no profile) */
    size_t samples; /* output points, t = 0 and t = horizon included; default 401 */
    ac_transient_start start;
    double rtol, atol;        /* integration tolerances; default 1e-7, 1e-10 */
    size_t dense_max;         /* default AC_TRANSIENT_DENSE_MAX */
    size_t pool_dim_max;      /* cap on one pool's levels; default 4096 */
    double scale;             /* workload factor applied to every source and profile; default 1
                                 (a workspace: the largest it evaluates) */
    double capacity_min;      /* a workspace: the least share (0, 1] of a pool's capacity N mu a
                                 fault plan leaves (servers-down, delay); the truncations are
                                 sized for it, and a plan that leaves less is refused; default 1 */
    double max_work;          /* the work budget of one evaluation: integration steps x states;
                                 past it the evaluation fails with AC_ELIMIT (err says so); default
                                 AC_TRANSIENT_MAX_WORK */
    int percentiles;          /* 1 (default): every evaluation fills the percentiles at each sample
                                 and over the horizon (the metrics below); 0: only the laws, the
                                 quantiles on demand (ac_transient_node_quantile,
                                 ac_transient_e2e_quantile: what the search reads) */
    double backlog_threshold; /* jobs: a backlog above this counts in backlog_duration and
                                 drain_time; default 1 */
} ac_transient_options;

/* Fill `opt` with the defaults above. */
void ac_transient_options_init(ac_transient_options *opt);

/* One node's trajectory, at the sample times of the result. Arrays have nsamples entries
 * (NULL for what does not apply to the node's kind). Every node is modelled; the
 * serverless stages fill the common fields as follows (as the steady state does,
 * analysis.h):
 *   functions: arrival_rate = requests offered (first attempts; polled: executions
 *     delivered by the queue, plus any other inflow), throughput = successful requests,
 *     mean_jobs = busy instances (executing or initialising), utilization = that / the
 *     concurrency, loss_rate = requests lost (sync: throttled, or failed after every retry;
 *     async: failed after every retry; polled: failed executions, which the queue
 *     redelivers), mean_response_time = Little: (busy + initialising + waiting + in
 *     back-off) / the requests entering (admitted sync, offered async/polled);
 *   queues: arrival_rate = messages offered, throughput = deliveries (batches passed to the
 *     consumer, redeliveries included: the flow on the routes), mean_jobs = messages held
 *     (visible, in process, waiting to reappear), utilization = consumer executions of the
 *     queue / min(max-consumers, concurrency), loss_rate = rejected (full) + dead-lettered,
 *     mean_response_time = Little: (visible + waiting to reappear) / messages admitted;
 *   gateways: arrival_rate = requests offered, throughput = admitted, mean_jobs = tokens in
 *     use (the bucket's deficit), utilization = admitted / rate limit (above 1 while the
 *     bucket drains; 0 when unbounded), loss_rate = rejected (429), mean_response_time = 0.
 * For every node cum_arrivals - cum_departures - cum_lost = in_system - in_system(0)
 * (pools without cum_lost: they lose nothing but what their buffer refuses). */
typedef struct ac_transient_node {
    int modelled;               /* 1: the node has its own state in the ODE (every kind) */
    size_t dim;                 /* pools: levels of the state; other kinds: their fluid states
                                   (counters excluded) */
    int truncated;              /* 1: dim is a truncation, not the pool's buffer */
    double max_tail;            /* largest q_dim over the trajectory (mass at the truncation) */
    double *arrival_rate;       /* jobs/s offered (first attempts) */
    double *throughput;         /* jobs/s departing (pools: N mu q_1) */
    double *mean_jobs;          /* pools: per server, sum_k q_k */
    double *utilization;        /* pools: q_1 */
    double *loss_rate;          /* jobs/s offered and not admitted (pools: buffer or truncation
                                   full; for pools with retries a lower bound,
                                   solver/transient_pool.c) */
    double *mean_response_time; /* s, Little (pools: sum_k q_k / (mu q_1), 1/mu on an empty
                              pool) */
    double *cum_arrivals;       /* jobs offered since t = 0 (integrated in the ODE) */
    double *cum_departures;     /* jobs departed since t = 0 (integrated in the ODE; queues:
                                   messages deleted after a successful delivery) */
    double *q_final;            /* the state at the horizon (dim entries) */
    double steady_mean_jobs;    /* the fixed point of mean_jobs at the base rates after the
                                   burst (has_burst), else NAN */
    double *in_system;          /* jobs at the node (pools: N sum_k q_k; functions: busy +
                                   initialising + waiting + in back-off; queues: messages held;
                                   gateways: 0) */
    /* Servers (every pool; autoscaled or not). */
    int autoscaled;        /* 1: the pool has <autoscale> and the scaler runs */
    double *servers;       /* serving count N(t) at the samples (pools only) */
    size_t start_servers;  /* N(0): the pool's `servers` */
    size_t steady_servers; /* autoscaled: the count the scaler holds in steady state at the
                              source rates (ac_solver_autoscale_steady, solver.h); else servers */
    size_t scaling_events; /* changes of the target count over [0, horizon) */
    double server_hours;   /* int_0^horizon N dt / 3600 */
    size_t nevents;        /* the scaling events: time (s) and the new target count */
    double *event_t;
    size_t *event_target;
    size_t nchanges; /* the changes of the serving count: time (s) and the new N */
    double *change_t;
    size_t *change_servers;
    double drained_jobs; /* jobs of busy servers removed by a scale-down (0 normally) */
    /* Serverless stages (NULL for the kinds they do not apply to). */
    double *instances;        /* functions: instances alive: busy + initialising + idle-warm,
                                 provisioned ones included */
    double *busy;             /* functions: instances executing (initialising excluded) */
    double *initialising;     /* functions: cold starts in progress */
    double *idle;             /* functions: idle-warm instances (provisioned idle included) */
    double *cold_start_rate;  /* functions: new instances started per second (cold starts;
                               pre-warming pings excluded) */
    double *execution_rate;   /* functions: executions started per second, retries included */
    double *throttle_rate;    /* functions (sync): requests throttled per second (by the
                                 concurrency or the scale rate); each one's r immediate retries
                                 are throttled too, so the objective's throttle-rate (throttled
                                 attempts / attempts) is (r + 1) throttle_rate /
                                 ((r + 1) throttle_rate + execution_rate); 0 for async and
                                 polled functions, which wait instead */
    double *failure_rate;     /* functions: failed executions per second (timeout or
                                 fail-prob), retried or not */
    double *backlog;          /* queues: visible messages waiting for a delivery (the backlog of
                                 backlog-duration); async and polled functions: attempts
                                 waiting for a slot or a scale token */
    double *tokens;           /* gateways (bounded): tokens in the bucket; functions: scale
                                 tokens in their bucket of scale-burst
                                 (default max(1, scale-rate)) */
    double *dead_letter_rate; /* queues: messages moved to the dead-letter queue per second */
    double *cum_lost;         /* serverless stages: jobs lost since t = 0 (the integral of
                                 loss_rate) */
    double *cum_admitted;     /* functions: requests admitted since t = 0 (started on an
                                 instance; polled: executions started) */
    double *cum_throttled;    /* functions: requests throttled since t = 0 */
    double *cum_cold_starts;  /* functions: cold starts since t = 0 */
    double prewarm_instances; /* functions: instances created by pre-warming pings over
                              [0, horizon) */
    /* The objective's metrics (solver/transient_metrics.c). The response law of a job
       arriving at sample time t is the node's quasi-stationary law at its fluid state then,
       T = a + c0 B + W + S: a fixed part a (the fluid FIFO wait of the backlog ahead, the
       injected delay, a link's latency and transmission), a cold start c0 with probability
       p_c (B), a wait W that is 0 with probability 1 - p_w and else exponential (the
       pointwise-stationary Erlang-C / M/M/1 wait at the instantaneous load and servers up,
       or the pool's mean-field state), and the service S = min(Exp(mean), cap). */
    double *law;               /* AC_TRANSIENT_LAW_NPAR x nsamples: the law's parameters */
    double *p95_response_time; /* s, per sample: the p95 of that law (percentiles = 1) */
    double *p99_response_time; /* s, per sample: the p99 (percentiles = 1) */
    double p95_horizon;        /* s, the p95 of the response times of the jobs completing over
                                  [0, horizon]: the mixture of the samples' laws weighted by the
                                  jobs served (a function's executions, failed ones included;
                                  else the throughput) (percentiles = 1; else NAN) */
    double p99_horizon;        /* s, likewise */
    double offered;            /* jobs offered over the horizon (cum_arrivals) */
    double throttled;          /* jobs refused by a limit: a sync function's throttles
                                  (concurrency, scale rate), a gateway's 429s */
    double errors;             /* jobs failed: executions failed or timed out after every retry
                                  (functions; polled: failed executions, which the queue
                                  redelivers), a queue's rejections and dead letters, a pool's
                                  refusals by its buffer (5xx) */
    double throttle_fraction;  /* throttled / offered (NAN: nothing offered) */
    double error_fraction;     /* errors / offered (NAN: nothing offered) */
    double backlog_duration;   /* s, the time the backlog (queues: visible messages; async and
                                  polled functions: waiting attempts; pools: jobs waiting; links:
                                  the fluid backlog) is above backlog_threshold; NAN: no backlog */
    double backlog_peak;       /* jobs, the largest backlog */
    double drain_time;         /* s, from the end of the last fault window (or of the burst,
                                  without a plan) to the first sample where the backlog is at
                                  or below the threshold; 0 when it is then; INFINITY when not
                                  by the horizon; NAN: no fault end and no burst, or no backlog */
    double oldest_age;         /* s, pools and queues: the largest over the samples of the age
                                  of the oldest job at the node in the fluid FIFO order, t - s
                                  where the jobs entered by s equal those left by t (entered =
                                  left + in_system - in_system(0); jobs present at t = 0
                                  entered at the rate of t = 0 before); at a steady load the
                                  mean response time; NAN for the other kinds */
} ac_transient_node;

/* The parameters of a law (ac_transient_node.law): a, p_c, c0, p_w, the wait's rate, the
 * service's mean (0: no service part), its cap (INFINITY: none). */
enum {
    AC_TRANSIENT_LAW_SHIFT = 0,
    AC_TRANSIENT_LAW_PCOLD,
    AC_TRANSIENT_LAW_COLD,
    AC_TRANSIENT_LAW_PWAIT,
    AC_TRANSIENT_LAW_WRATE,
    AC_TRANSIENT_LAW_SMEAN,
    AC_TRANSIENT_LAW_SCAP,
    AC_TRANSIENT_LAW_NPAR
};

/* A link in the transient (solver/transient_link.c). A link of finite capacity
 * c (1 - capacity-loss) is a fluid node of the ODE between its routes' nodes: its jobs x
 * (waiting or transmitting) follow the pointwise-stationary fluid flow approximation
 *   x' = f (1 - B(x)) - c U(x),   carried c U(x),   lost f B(x),
 * with U, B the busy fraction and the blocking of the stationary M/D/1 (M/D/1/K, K = buffer
 * + 1) whose mean jobs are x, so a constant load settles at the steady state of
 * solver/link.c and an overload carries c; the node behind it is fed what it carries, after
 * the latency (Erlang stages of that mean in the flows; in the law, and so end to end; a
 * delay fault adds to it). A link of unbounded capacity has its stages only (no state
 * without a latency). */
typedef struct ac_transient_link {
    double *arrival_rate;   /* jobs/s offered to the link (its routes' copies) */
    double *throughput;     /* jobs/s carried (c U(x)) */
    double *backlog;        /* jobs waiting (x - U(x): the transmission excluded) */
    double *loss_rate;      /* jobs/s refused by the buffer (f B(x)) */
    double *cum_arrivals;   /* jobs offered since t = 0 (integrated in the ODE) */
    double *cum_departures; /* jobs carried since t = 0 */
    double *cum_lost;       /* jobs refused since t = 0 */
    double *in_system;      /* jobs waiting or transmitting (x) */
    double *law;            /* AC_TRANSIENT_LAW_NPAR x nsamples */
    double *p95_response_time, *p99_response_time;     /* s (percentiles = 1) */
    double backlog_duration, backlog_peak, drain_time; /* as for nodes */
    double offered, lost;                              /* jobs over the horizon */
    double loss_fraction;                              /* lost / offered (NAN: none offered) */
    double oldest_age; /* s, as for nodes (ac_transient_node.oldest_age) */
    int saturated;     /* 1: the offered flow exceeded the capacity at some sample (the link then
                          carries its capacity and the node behind it is fed that) */
} ac_transient_link;

typedef struct ac_transient {
    double horizon; /* s */
    size_t nsamples;
    double *t;     /* s, the sample times */
    size_t nnodes; /* = model->nnodes */
    ac_transient_node *nodes;
    size_t dim;            /* total ODE dimension (states and counters of every node) */
    const char *method;    /* "msbdf" or "rkf45" */
    int has_burst;         /* the profiles have a burst that returns to the base rate */
    double burst_peak;     /* s, when the (first) highest profile rate starts */
    double burst_end;      /* s, when the last burst is back at its base rate (NAN: none) */
    int started_steady;    /* 1: the start state is a settled fixed point */
    size_t nautoscaled;    /* pools whose scaler runs */
    size_t scaling_events; /* total over the pools */
    double server_hours;   /* total over every pool, autoscaled or not */
    size_t nlinks;         /* = model->nlinks */
    ac_transient_link *links;
    /* End to end (solver/transient_metrics.c): a request's time is the sum of its stages'
       along the path it takes (the max over a fan-out's copies); its p-quantile is at most
       the largest over the paths of sum_v q_v(1 - (1 - p) / L), each stage's quantile at
       that level (Bonferroni: P(T > sum q_v) <= sum_v m_v P(T_v > q_v) <= 1 - p), where m_v
       bounds the copies of a request at v (the fan-outs' product over the fan-ins, at least
       1) and L = the largest sum_v m_v over the paths; at least the largest stage quantile.
       NAN when the routes have a cycle. */
    double e2e_stages;                       /* L */
    double *e2e_p95, *e2e_p99;               /* s, per sample: the bound at the samples' laws */
    double e2e_p95_horizon, e2e_p99_horizon; /* s, over the horizon (requests weighted by the
                                                sources' rate; percentiles = 1) */
    double e2e_offered;                      /* requests offered by the sources over the horizon */
    /* The requests failed end to end (doc/models.md §5, "Throttles and errors"): a request
       fails when any job it makes (a copy of a fan-out, a redelivery's executions included)
       fails for good. The fractions are per request under independence: each job at node v
       fails with v's share f_v = failures_v / jobs offered at v over the horizon, the visits
       per request from the routes (p, fanout / fanin; a queue's receives per message
       deleted, a polled function's successful executions per execution), so on a chain
       with fan-outs 1 - prod_v (1 - f_v)^(n_v); each at most its union bound. The union bounds are
       sum_v failures_v / e2e_offered (links' refusals included; at most 1): every failed job
       counts, an upper bound for any dependence and any time course. Polled functions'
       failed executions are redelivered by their queue, not failures (its dead letters
       are). With a cycle of routes the fractions are the union bounds. NAN: no request. */
    double e2e_error_fraction;    /* errors: failures other than a throttle */
    double e2e_throttle_fraction; /* throttles: a sync function's, a gateway's 429s */
    double e2e_loss_fraction;     /* both kinds (the objective's end-to-end loss) */
    double e2e_error_union, e2e_throttle_union, e2e_loss_union; /* the union bounds */
    double *e2e_rate;      /* requests/s offered by the sources, per sample */
    const ac_model *model; /* internal: the model (borrowed) */
    size_t *e2e_order;     /* internal: nodes in topological order (NULL: a cycle) */
    double *e2e_mult;      /* internal: m_v by node */
    double *e2e_scratch;   /* internal: nnodes + nlinks + 1 */
    char note[512];        /* what the model leaves out or approximates, "" if nothing */
} ac_transient;

/*
 * Integrate the fluid transient of `model` (valid, from the parser) over [0, horizon] (the
 * one-shot call: a workspace, one evaluation at opt->scale without faults, its result).
 * `opt` may be NULL (defaults). On success *out is a new result (free with
 * ac_transient_free). A pool that would need more than opt->pool_dim_max levels is
 * truncated there (said in `note`). Returns 0, AC_EINVAL (no horizon, bad options),
 * AC_EINPUT (the traffic has no finite solution, or jobs pass around a cycle of gateways,
 * queues and their consumers without ever waiting in a state), AC_ENOMEM,
 * AC_ELIMIT (a pool model over the solver's limits) or AC_ENUMERIC (the integration
 * failed; err says at which time).
 */
int ac_transient_run(const ac_model *model, const ac_transient_options *opt, ac_transient **out,
                     ac_error *err);

/* Free a result. NULL is a no-op. */
void ac_transient_free(ac_transient *tr);

/*
 * A fault plan: faults in time on the nodes of the model (format.md <faults>; what one
 * candidate of the worst-case search decodes to). Each fault sets one attribute of one node
 * to `value` over the window [start, end) (s; end = INFINITY: to the horizon), applied as
 * events at the window's edges.
 */
typedef enum ac_transient_fault_attr {
    AC_TRANSIENT_FAULT_DELAY = 0,     /* s added to every execution / service (functions,
                                         pools), to the latency of every transfer (links) */
    AC_TRANSIENT_FAULT_FAIL_PROB,     /* probability that one execution fails (functions,
                                         pools) */
    AC_TRANSIENT_FAULT_SERVERS_DOWN,  /* servers lost (pools) */
    AC_TRANSIENT_FAULT_CAPACITY_LOSS, /* fraction of capacity lost (links, gateways) */
    AC_TRANSIENT_FAULT_COLD_START     /* s, the cold-start latency (functions) */
} ac_transient_fault_attr;

typedef struct ac_transient_fault {
    size_t target; /* node index (model->nodes), or model->nnodes + l for link l (delay,
                      capacity-loss; the simulator's numbering) */
    ac_transient_fault_attr attr;
    double value;      /* in the attribute's unit (above) */
    double start, end; /* s, the window [start, end) */
} ac_transient_fault;

/* The most faults in one plan. */
#define AC_TRANSIENT_PLAN_MAX 256

typedef struct ac_transient_plan {
    size_t nfaults;
    const ac_transient_fault *faults; /* borrowed, nfaults entries */
} ac_transient_plan;

/*
 * A workspace (GSL style): everything one evaluation of the transient of a model needs,
 * built once by ac_transient_new (the pools' truncations and models, the state layout, the
 * evaluation order and the Jacobian's structure, the ODE driver, the result's arrays), then
 * evaluated any number of times by ac_transient_eval, which allocates nothing (an
 * autoscaled pool's model at a serving count is built the first time the count is reached;
 * the scalers' logs have room for a look per interval). A workspace is used by one thread
 * at a time; workspaces on one model (read-only, shared) run in parallel.
 */
typedef struct ac_transient_ws ac_transient_ws;

/*
 * Build the workspace of `model` (valid, from the parser; it must outlive the workspace).
 * `opt` may be NULL (defaults); opt->scale is the largest workload factor the workspace
 * will be evaluated at (the pools' truncations are sized for it). Returns 0, AC_EINVAL,
 * AC_EINPUT, AC_ENOMEM or AC_ELIMIT as ac_transient_run; on success *out is the new
 * workspace (free with ac_transient_ws_free).
 */
int ac_transient_new(const ac_model *model, const ac_transient_options *opt, ac_transient_ws **out,
                     ac_error *err);

/*
 * One evaluation: the transient with every source and its profile times `scale` (in [0,
 * opt->scale] of ac_transient_new), under the fault plan `plan` (NULL or no fault: none;
 * each fault's semantics in solver/transient_faults.c; a fault the transient does not
 * model, or a plan leaving a pool less than opt->capacity_min of its capacity, is
 * AC_EINVAL; the plan is borrowed for the call). *out points to the
 * workspace's result, valid until the next evaluation or ac_transient_ws_free. The settled
 * start state of the last scale is kept, so evaluations at one scale settle once. Returns
 * 0, AC_EINVAL, AC_ENUMERIC (err says at which time) or AC_ELIMIT (the work budget
 * options.max_work used up); allocates nothing.
 */
int ac_transient_eval(ac_transient_ws *ws, const ac_transient_plan *plan, double scale,
                      const ac_transient **out, ac_error *err);

/* Free a workspace (and its result). NULL is a no-op. */
void ac_transient_ws_free(ac_transient_ws *ws);

/* P(T > x) for the law of node n (or a link's law array) at sample s (x in s). */
double ac_transient_law_ccdf(const double *law, size_t nsamples, size_t s, double x);

/* The p-quantile (0 < p < 1) of the law at sample s (s), by bisection to 1e-7 relative. */
double ac_transient_law_quantile(const double *law, size_t nsamples, size_t s, double p);

/*
 * The p-quantile (0 < p < 1) of the response times of node `node` over [0, horizon]: the
 * mixture of its samples' laws weighted by `weight` (nsamples entries, e.g. the node's
 * throughput; NULL: a function's executions started, failed ones included, else the
 * throughput) times the trapezoids' dt. *out NAN when the weights
 * are all 0. Returns 0 or AC_EINVAL (node or p out of range). Allocates nothing.
 */
int ac_transient_node_quantile(const ac_transient *tr, size_t node, double p, const double *weight,
                               double *out);

/*
 * The bound of the end-to-end p-quantile over [0, horizon] (the top of ac_transient):
 * sum along the worst path of every stage's mixture quantile at level 1 - (1 - p) / L,
 * weighted by the sources' rate, tightened (without parallel routes) by the mixture over the
 * routes: each branch weighted by its p, the union bound at the best split of each route's
 * sum on a grid of 128 steps (solver/transient_metrics.c, e2e_mixture). `scratch` holds
 * nnodes + nlinks doubles; the grid uses the transient's own scratch (not concurrently on
 * one transient). *out NAN when the routes have a cycle or nothing is offered. Returns 0 or
 * AC_EINVAL. Allocates nothing.
 */
int ac_transient_e2e_quantile(const ac_transient *tr, double p, double *scratch, double *out);

/* Scaling events of node n in [0, t] (t in s; events at t included). */
size_t ac_transient_events_until(const ac_transient_node *n, double t);

/* Server-hours of node n over [0, t]: int_0^t N dt / 3600 (t <= the horizon). */
double ac_transient_server_hours_until(const ac_transient_node *n, double t);

/* The horizon of the transient of `model` (s): opt->horizon when set (opt may be NULL),
 * else the largest last point `at` of the profiles (0 without any). */
double ac_transient_horizon(const ac_model *model, const ac_transient_options *opt);

/* The burst of one profile: base = its first point's rate, *t_peak = when the (first)
 * highest point is reached, *t_end = when the rate is back at the base after it (s; a
 * repeated profile's period when it is not before). Returns 1 when there is a burst above
 * the base, else 0 (t_peak, t_end untouched). */
int ac_transient_profile_burst(const ac_profile *profile, double *t_peak, double *t_end);

/* The rate of source `source` of `model` at time t (s), jobs/s, times `scale`. */
double ac_transient_source_rate(const ac_model *model, size_t source, double scale, double t);

#ifdef __cplusplus
}
#endif

#endif
