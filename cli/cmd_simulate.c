/*
 * archcheck simulate FILE : the discrete-event simulation of the architecture.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/parser.h"
#include "cli/cli.h"

static const char simulate_usage[] =
    "usage: archcheck simulate [OPTIONS] FILE\n"
    "\n"
    "Simulate the architecture event by event (finite servers, the same semantics as the\n"
    "solver) and estimate every KPI with a 95% confidence interval over independent\n"
    "replications. The same seed gives the same output, byte for byte.\n"
    "\n"
    "options:\n"
    "      --replications N     a fixed number of replications (default: automatic, until\n"
    "                           --precision is reached)\n"
    "      --precision P        target relative half-width of the main KPIs (default 1%)\n"
    "      --horizon DURATION   length of each replication (default: automatic)\n"
    "      --warmup DURATION    discarded start of each replication (default: horizon/10)\n"
    "      --seed N             random seed (default: the file's <faults seed>, else 1)\n"
    "      --max-events N       event budget over all replications (default 50000000,\n"
    "                           about 10 s; the automatic horizon fits it)\n"
    "      --profiles           sources follow their <profile> (default: steady rates)\n"
    "      --jobs N             replications on N threads (default 1; the output is the same\n"
    "                           for every N)\n"
    "  -f, --format FMT         text (default) or json\n"
    "  -o, --output FILE        write to FILE (atomically) instead of stdout\n"
    "  -q, --quiet              no progress bar (drawn on stderr only when stderr is a\n"
    "                           terminal: the work done of the event budget or of the\n"
    "                           replications, and the time left; never changes the output)\n"
    "  -h, --help               this help\n"
    "\n"
    "exit status: 0 simulated, 2 invalid input or command line, 3 the model cannot be\n"
    "simulated (a node kind the simulator does not have, or an overloaded model)\n";

static int parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    unsigned long long v;
    if (*s == '\0' || *s == '-' || *s == '+')
        return -1;
    v = strtoull(s, &end, 10);
    if (*end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

/*
 * An overloaded model has no steady state to estimate: a node offered at least its capacity
 * with an unbounded buffer (a pool, a queue, an async function, a link) grows without end,
 * and a simulation over any horizon would print finite intervals of a transient. The
 * analysis' stability findings decide (the traffic equations, exact); the loss systems it
 * also calls overloaded (a sync function's throttling, a gateway's rejections) have a
 * steady state and are simulated. Returns 1 (the AC101 findings printed on stderr), 0 not
 * overloaded, or -1 when the analysis itself failed (then the simulator decides).
 */
static int overloaded(const ac_model *m, const char *file)
{
    ac_analysis_options ao;
    ac_analysis *a = NULL;
    ac_diag_list d = {0};
    ac_error err = {0};
    int over = 0;
    ac_analysis_options_init(&ao);
    ao.headroom = 0;
    ao.validate = AC_VALIDATE_NEVER;
    ao.transient = AC_TRANSIENT_NEVER;
    ao.search = 0; /* only AC101 is read here */
    if (ac_analysis_run(m, &ao, &a, &d, &err) != AC_OK || a == NULL) {
        ac_diag_list_clear(&d);
        return -1;
    }
    for (size_t i = 0; i < d.count; i++) {
        const ac_diag *g = &d.items[i];
        size_t k;
        if (strcmp(g->rule, "AC101") != 0 || g->node == NULL)
            continue;
        k = ac_model_find_node(m, g->node);
        if (k != AC_NONE && !a->nodes[k].overload)
            continue; /* a loss system: it has a steady state */
        fprintf(stderr, "%s:%u:%u: error: %s [AC101]\n", file, g->line, g->column, g->message);
        over = 1;
    }
    ac_analysis_free(a);
    ac_diag_list_clear(&d);
    return over;
}

/* What the command line asks for besides the simulator's options. */
typedef struct {
    const char *format, *out;
    int has_seed, quiet;
} simulate_args;

/*
 * Reads the options into so and a; returns -1 when they are all read (optind then points at
 * the file), else the exit status to return (help printed, or a usage error said).
 */
static int parse_options(int argc, char **argv, ac_sim_options *so, simulate_args *a)
{
    static const struct option opts[] = {{"replications", required_argument, NULL, 'r'},
                                         {"precision", required_argument, NULL, 'p'},
                                         {"horizon", required_argument, NULL, 'H'},
                                         {"warmup", required_argument, NULL, 'w'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"max-events", required_argument, NULL, 'm'},
                                         {"profiles", no_argument, NULL, 'P'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    unsigned long long v;
    char msg[256];

    optind = 0;
    opterr = 0; /* ac_cli_bad_option says what is wrong */
    while ((c = getopt_long(argc, argv, "f:o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (parse_count(optarg, 1000000, &v) != 0 || v < 2)
                return ac_cli_fail("--replications takes a whole number from 2 to 1000000: got "
                                   "'%s'",
                                   optarg);
            so->replications = (size_t)v;
            break;
        case 'p':
            if (ac_parser_quantity(optarg, AC_QUANTITY_PROBABILITY, &so->rel_precision, msg,
                                   sizeof msg) != 0 ||
                !(so->rel_precision > 0.0))
                return ac_cli_fail("--precision takes a positive fraction or percentage (1%% or "
                                   "0.01): got '%s'",
                                   optarg);
            break;
        case 'H':
            if (ac_parser_quantity(optarg, AC_QUANTITY_DURATION, &so->horizon, msg, sizeof msg) !=
                    0 ||
                !(so->horizon > 0.0))
                return ac_cli_fail("--horizon: '%s' %s", optarg,
                                   msg[0] ? msg : "must be a positive duration");
            break;
        case 'w':
            if (ac_parser_quantity(optarg, AC_QUANTITY_DURATION, &so->warmup, msg, sizeof msg) != 0)
                return ac_cli_fail("--warmup: '%s' %s", optarg, msg);
            break;
        case 's':
            if (parse_count(optarg, 4294967295ull, &v) != 0)
                return ac_cli_fail("--seed takes a whole number from 0 to 4294967295: got '%s'",
                                   optarg);
            so->seed = (unsigned long)v;
            a->has_seed = 1;
            break;
        case 'm':
            if (parse_count(optarg, 1000000000000ull, &v) != 0 || v == 0)
                return ac_cli_fail("--max-events takes a positive whole number: got '%s'", optarg);
            so->max_events = v;
            break;
        case 'P': so->use_profiles = 1; break;
        case 'j':
            if (parse_count(optarg, 256, &v) != 0 || v == 0)
                return ac_cli_fail("--jobs takes a whole number from 1 to 256: got '%s'", optarg);
            so->jobs = (size_t)v;
            break;
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
                return ac_cli_fail("unknown format '%s' (allowed: text json)", optarg);
            a->format = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': fputs(simulate_usage, stdout); return AC_EXIT_PASS;
        default: return ac_cli_bad_option(argv, opts, "f:o:qh", simulate_usage);
        }
    }
    return -1;
}

typedef struct result_ctx {
    int json;
    const ac_report_file *file;
    const ac_sim_result *res;
} result_ctx;

static int write_simulation(FILE *fp, const void *ctx)
{
    const result_ctx *c = ctx;
    return c->json ? ac_report_simulation_json(fp, c->file, c->res)
                   : ac_report_simulation_text(fp, c->file, c->res);
}

/* Writes the result as text or JSON to stdout or, atomically, to a->out. */
static int write_result(const simulate_args *a, const ac_cli_input *in, const ac_sim_result *res)
{
    const result_ctx c = {strcmp(a->format, "json") == 0, &in->files[0], res};
    return ac_cli_emit(a->out, stdout, write_simulation, &c) != 0 ? AC_EXIT_USAGE : AC_EXIT_PASS;
}

int ac_cli_simulate(int argc, char **argv)
{
    ac_sim_options so;
    simulate_args a = {"text", NULL, 0, 0};
    int status = AC_EXIT_PASS, rc;
    ac_cli_progress bar;
    ac_cli_input in;
    ac_sim_result *res = NULL;
    ac_error err = {0};

    ac_sim_options_init(&so);
    so.rel_precision = 0.01;
    so.max_events = 50000000ull;
    rc = parse_options(argc, argv, &so, &a);
    if (rc >= 0)
        return rc;
    if (optind + 1 != argc) {
        fputs(simulate_usage, stderr);
        return ac_cli_fail("simulate: exactly one input file is needed");
    }
    if (so.horizon > 0.0 && so.warmup >= so.horizon)
        return ac_cli_fail("--warmup must be shorter than --horizon");
    if (ac_cli_input_load_one(&in, argv[optind], 0) != 0)
        return AC_EXIT_USAGE;
    if (!a.has_seed && in.models[0]->faults.has_seed)
        so.seed = in.models[0]->faults.seed;
    if (overloaded(in.models[0], in.files[0].file) == 1) {
        fprintf(stderr,
                "archcheck: %s: cannot simulate: the model is overloaded (no steady state: "
                "its backlog grows without end over any horizon)\n",
                in.files[0].file);
        status = AC_EXIT_INCONCLUSIVE;
        goto cleanup;
    }
    ac_cli_progress_init(&bar, in.files[0].file, a.quiet, stderr);
    if (bar.on) {
        so.progress = ac_cli_progress_update;
        so.progress_ctx = &bar;
        ac_cli_progress_update(&bar, 0.0);
    }
    rc = ac_sim_run(in.models[0], &so, &res, &err);
    ac_cli_progress_end(&bar);
    if (rc == AC_ENOMEM) {
        status = ac_cli_fail("%s", err.message);
    } else if (rc != AC_OK) {
        fprintf(stderr, "archcheck: %s: cannot simulate: %s\n", in.files[0].file, err.message);
        status = AC_EXIT_INCONCLUSIVE;
    } else {
        status = write_result(&a, &in, res);
    }
cleanup:
    ac_sim_result_free(res);
    ac_cli_input_free(&in);
    return status;
}
