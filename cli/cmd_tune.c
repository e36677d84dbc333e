/*
 * archcheck tune FILE : the autoscaler settings of least cost that keep every requirement met
 * over the profile (include/archcheck/tune.h), against the settings as written.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/tune.h"
#include "cli/cli.h"

static const char tune_usage[] =
    "usage: archcheck tune [OPTIONS] FILE\n"
    "\n"
    "Search the settings of every autoscaled pool (target utilisation, cooldown, interval,\n"
    "min, max) for the least server-seconds over the profile that keep every latency,\n"
    "utilisation, loss, scaling and headroom requirement met: a genetic search on the fluid\n"
    "transient, the cheapest candidates simulated with their autoscalers to confirm them\n"
    "(within --max-events). The same output for a seed and any number of jobs.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT       text (default) or json\n"
    "  -o, --output FILE      write to FILE (atomically) instead of stdout\n"
    "      --budget N         transient evaluations of the search (default 300)\n"
    "      --seed N           the search's and the simulations' seed (default 1)\n"
    "      --jobs N           evaluation threads, 1 to 64 (default 1)\n"
    "      --target LO..HI    target utilisation range (default 0.3..0.9; one value: fixed)\n"
    "      --cooldown LO..HI  seconds (default 0..900)\n"
    "      --interval LO..HI  seconds (default 5..60)\n"
    "      --min LO..HI       servers (default 1..the max as written)\n"
    "      --max LO..HI       servers (default the min as written..twice the max as written)\n"
    "      --confirm N        cheapest candidates examined (default 4)\n"
    "      --replications N   of each confirming simulation (default 10)\n"
    "      --max-events N     of each confirming simulation (default 50000000)\n"
    "      --moments N        the over-provisioning's moments over the profile, a sizing at\n"
    "                         each (default 24; 0: not computed)\n"
    "      --report OUT.pdf   also write the tune page: the cost-vs-SLA front and the\n"
    "                         over-provisioning figure\n"
    "      --timestamp        date the PDF ($SOURCE_DATE_EPOCH if set)\n"
    "  -h, --help             this help\n"
    "\n"
    "exit status: 0 a setting confirmed by simulation, or (no simulation fit --max-events)\n"
    "accepted on fluid margins beyond their stated errors, 1 no setting meets the\n"
    "requirements, 2 invalid input or command line, 3 the best setting is uncertain (a margin\n"
    "within its stated error, or simulated intervals straddling a limit)\n";

/* "LO..HI" or "V" (LO = HI = V). */
static int parse_range(const char *opt, const char *arg, ac_tune_range *out)
{
    char lo[64], *end;
    const char *dots = strstr(arg, "..");
    size_t n = dots != NULL ? (size_t)(dots - arg) : strlen(arg);
    if (n == 0 || n >= sizeof lo)
        goto bad;
    memcpy(lo, arg, n);
    lo[n] = '\0';
    out->lo = strtod(lo, &end);
    if (*end != '\0')
        goto bad;
    if (dots == NULL) {
        out->hi = out->lo;
    } else {
        out->hi = strtod(dots + 2, &end);
        if (end == dots + 2 || *end != '\0')
            goto bad;
    }
    if (isfinite(out->lo) && isfinite(out->hi))
        return 0;
bad:
    return ac_cli_fail("%s takes LO..HI or one number: got '%s'", opt, arg);
}

static int parse_num(const char *opt, const char *arg, unsigned long lo, unsigned long hi,
                     unsigned long *out)
{
    if (ac_cli_ulong_parse(arg, hi, out) != 0 || *out < lo)
        return ac_cli_fail("%s takes a whole number from %lu to %lu: got '%s'", opt, lo, hi, arg);
    return 0;
}

/* Parse argv into o; *format 0 text, 1 json. Returns 0, -1 (help printed) or AC_EXIT_USAGE. */
static int parse_opts(int argc, char **argv, ac_tune_options *o, int *json, const char **out,
                      ac_cli_run_opts *ro)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"target", required_argument, NULL, 'T'},
                                         {"cooldown", required_argument, NULL, 'C'},
                                         {"interval", required_argument, NULL, 'I'},
                                         {"min", required_argument, NULL, 'm'},
                                         {"max", required_argument, NULL, 'M'},
                                         {"confirm", required_argument, NULL, 'k'},
                                         {"replications", required_argument, NULL, 'R'},
                                         {"max-events", required_argument, NULL, 'E'},
                                         {"moments", required_argument, NULL, 'n'},
                                         {"report", required_argument, NULL, 'r'},
                                         {"timestamp", no_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    unsigned long v;
    int c, rc = 0;
    optind = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "text") == 0 || strcmp(optarg, "json") == 0)
                *json = strcmp(optarg, "json") == 0;
            else
                rc = ac_cli_fail("--format takes text or json: got '%s'", optarg);
            break;
        case 'o': *out = optarg; break;
        case 'b':
            rc = parse_num("--budget", optarg, 1, 10000000ul, &v);
            o->budget = v;
            break;
        case 's':
            rc = parse_num("--seed", optarg, 0, 4294967295ul, &v);
            o->seed = v;
            break;
        case 'j':
            rc = parse_num("--jobs", optarg, 1, 64, &v);
            o->jobs = v;
            break;
        case 'k':
            rc = parse_num("--confirm", optarg, 1, 1000, &v);
            o->confirm = v;
            break;
        case 'R':
            rc = parse_num("--replications", optarg, 2, 10000, &v);
            o->replications = v;
            break;
        case 'E':
            rc = parse_num("--max-events", optarg, 1, 4000000000ul, &v);
            o->max_events = v;
            break;
        case 'n':
            rc = parse_num("--moments", optarg, 0, AC_TUNE_MOMENTS_MAX, &v);
            o->moments = v;
            break;
        case 'r': ro->report = optarg; break;
        case 'S': ro->timestamp = 1; break;
        case 'T': rc = parse_range("--target", optarg, &o->target); break;
        case 'C': rc = parse_range("--cooldown", optarg, &o->cooldown); break;
        case 'I': rc = parse_range("--interval", optarg, &o->interval); break;
        case 'm': rc = parse_range("--min", optarg, &o->min); break;
        case 'M': rc = parse_range("--max", optarg, &o->max); break;
        case 'h': fputs(tune_usage, stdout); return -1;
        default: fputs(tune_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    return rc == 0 ? 0 : AC_EXIT_USAGE;
}

typedef struct result_ctx {
    int json;
    const ac_report_file *f;
    unsigned long seed;
    const ac_tune_result *r;
} result_ctx;

static int write_result(FILE *fp, const void *ctx)
{
    const result_ctx *c = ctx;
    return c->json ? ac_report_tune_json(fp, c->f->file, c->f->sha256, c->seed, c->f->model, c->r)
                   : ac_report_tune_text(fp, c->f->file, c->f->model, c->r);
}

static int emit(const char *path, int json, const ac_report_file *f, unsigned long seed,
                const ac_tune_result *r)
{
    const result_ctx c = {json, f, seed, r};
    return ac_cli_emit(path, stdout, write_result, &c);
}

int ac_cli_tune(int argc, char **argv)
{
    ac_tune_options o;
    ac_tune_result *r = NULL;
    ac_cli_input in;
    ac_error err = {0};
    const char *out = NULL;
    int json = 0, status, rc;
    ac_cli_run_opts ro;
    ac_tune_options_init(&o);
    ac_cli_run_opts_init(&ro);
    o.moments = 24;
    status = parse_opts(argc, argv, &o, &json, &out, &ro);
    if (status != 0)
        return status < 0 ? AC_EXIT_PASS : status;
    if (optind + 1 != argc) {
        fputs(tune_usage, stderr);
        return ac_cli_fail("tune: exactly one input file is needed");
    }
    if (ac_cli_input_load_one(&in, argv[optind], 0) != 0)
        return AC_EXIT_USAGE;
    rc = ac_tune_run(in.models[0], &o, &r, &err);
    if (rc != AC_OK) {
        status = ac_cli_fail("%s: %s", in.files[0].file, err.message);
        if (rc != AC_EINVAL && rc != AC_ENOMEM)
            status = AC_EXIT_INCONCLUSIVE;
    } else {
        status = r->confirmed == AC_TUNE_NONE        ? AC_EXIT_FAIL
                 : r->confirmed == AC_TUNE_UNCERTAIN ? AC_EXIT_INCONCLUSIVE
                                                     : AC_EXIT_PASS;
        if (emit(out, json, &in.files[0], o.seed, r) != 0)
            status = AC_EXIT_USAGE;
        if (ro.report != NULL) {
            ac_report_pdf_options popt;
            ac_cli_pdf_options_init(&popt, &ro);
            if (ac_report_tune_pdf(ro.report, in.files[0].file, in.models[0], r, &popt, &err) !=
                AC_OK)
                status = ac_cli_fail("%s", err.message);
        }
    }
    ac_tune_result_free(r);
    ac_cli_input_free(&in);
    return status;
}
