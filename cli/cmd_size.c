/*
 * archcheck size FILE : the smallest server count, concurrency and consumer count meeting the
 * requirements (include/archcheck/size.h), and with --dispatch POOL the same pool under every
 * dispatcher side by side. Also the sizing section of `check --size` (ac_cli_size_attach).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char size_usage[] =
    "usage: archcheck size [OPTIONS] FILE\n"
    "\n"
    "For every pool (servers; autoscaled: the maximum), function (concurrency) and queue\n"
    "(max-consumers) that receives work, the smallest count meeting stability and every\n"
    "latency, utilisation and loss requirement, at the workload as written and at the\n"
    "workload times the required headroom; the binding requirement; the total saved or\n"
    "missing against the design. Counts within a stated error of a limit are settled by\n"
    "simulation, or reported as uncertain with the range the errors allow.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     text (default) or json (the check's JSON plus \"sizing\")\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "      --dispatch POOL  also compare POOL under random, power-of-d (d = 2, 3, distinct and\n"
    "                       with replacement), jsq, jiq and shared-queue: mean, p95, p99 at\n"
    "                       the design load and the servers each needs\n"
    "      --budget N       at most N network solves in all (default 4000)\n"
    "      --simulations N  at most N simulated confirmations (default 8; 0: none)\n"
    "      --report OUT.pdf also write the PDF report with its sizing page\n"
    "      --timestamp      date the PDF (CreationDate)\n"
    "      --seed N         the simulations' seed (default 1)\n"
    "      --validate       simulate every analysis; --no-validate: never (no confirmations)\n"
    "      --color WHEN     auto (default), always or never\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 every count found and the design has enough, 1 the design is short of\n"
    "the needed count somewhere, 2 invalid input or command line, 3 some count uncertain or\n"
    "not found\n";

int ac_cli_size_attach(ac_cli_input *in, const ac_analysis_options *aopt, size_t max_probes,
                       size_t max_sims, ac_sizing **out)
{
    for (size_t i = 0; i < in->n; i++) {
        ac_size_options so;
        ac_error err = {0};
        out[i] = NULL;
        if (in->models[i] == NULL || in->analyses[i] == NULL)
            continue;
        ac_size_options_init(&so);
        so.analysis = *aopt;
        so.analysis.search = 0; /* no sizing check reads <resilience>: no search per probe */
        so.max_probes = max_probes;
        so.max_simulations = aopt->validate == AC_VALIDATE_NEVER ? 0 : max_sims;
        if (ac_size_run(in->models[i], &so, &out[i], &err) != AC_OK)
            return ac_cli_fail("%s: size: %s", in->files[i].file, err.message);
        in->files[i].sizing = out[i];
    }
    return 0;
}

/* 0 every count found and enough as written, 1 short somewhere, 3 some count not settled. */
static int size_status(const ac_sizing *z)
{
    int short_of = 0;
    if (z == NULL)
        return AC_EXIT_INCONCLUSIVE;
    for (size_t j = 0; j < z->nnodes; j++) {
        const ac_size_answer *h = &z->nodes[j].at_headroom;
        if ((h->status == AC_SIZE_OK || h->status == AC_SIZE_UNCERTAIN) &&
            h->needed_lo > z->nodes[j].designed)
            short_of = 1;
        if (h->status == AC_SIZE_UNATTAINABLE)
            short_of = 1;
    }
    if (short_of)
        return AC_EXIT_FAIL;
    return z->complete ? AC_EXIT_PASS : AC_EXIT_INCONCLUSIVE;
}

static int parse_count(const char *opt, const char *arg, unsigned long max, unsigned long *out)
{
    if (ac_cli_ulong_parse(arg, max, out) != 0)
        return ac_cli_fail("%s takes a whole number from 0 to %lu: got '%s'", opt, max, arg);
    return 0;
}

int ac_cli_size(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"dispatch", required_argument, NULL, 'D'},
                                         {"budget", required_argument, NULL, 'b'},
                                         {"simulations", required_argument, NULL, 'S'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"report", required_argument, NULL, 'r'},
                                         {"timestamp", no_argument, NULL, 'T'},
                                         {"validate", no_argument, NULL, 'v'},
                                         {"no-validate", no_argument, NULL, 'V'},
                                         {"color", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", NULL};
    const char *pool = NULL;
    unsigned long budget = 4000, sims = 8;
    int c, status, color;
    ac_cli_run_opts ro;
    ac_cli_out_opts oo;
    ac_cli_input in;
    ac_report_run run;
    ac_analysis_options aopt;
    ac_sizing *sizing = NULL;
    ac_dispatch_row *rows = NULL;

    ac_cli_run_opts_init(&ro);
    ac_cli_out_opts_init(&oo, formats);
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        int taken = ac_cli_run_opts_parse(&ro, c, optarg);
        if (taken == 0)
            taken = ac_cli_out_opts_parse(&oo, c, optarg);
        if (taken == AC_EXIT_USAGE)
            return AC_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'D': pool = optarg; break;
        case 'b':
            if (parse_count("--budget", optarg, 100000000ul, &budget) != 0)
                return AC_EXIT_USAGE;
            break;
        case 'S':
            if (parse_count("--simulations", optarg, 100000ul, &sims) != 0)
                return AC_EXIT_USAGE;
            break;
        case 'h': fputs(size_usage, stdout); return AC_EXIT_PASS;
        default: fputs(size_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        fputs(size_usage, stderr);
        return ac_cli_fail("size: exactly one input file is needed");
    }
    color = oo.format == AC_FORMAT_TEXT && oo.out == NULL && ac_cli_color(oo.color, stdout);
    if (ac_cli_input_load_one(&in, argv[optind], color) != 0)
        return AC_EXIT_USAGE;
    ac_cli_run_opts_apply(&ro, &aopt);
    if (ac_cli_input_analyse(&in, &aopt, AC_SEV_ERROR, ro.has_seed) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    memset(&run, 0, sizeof run);
    run.command = "size";
    run.files = in.files;
    run.nfiles = 1;
    run.fail_on = AC_SEV_ERROR;
    run.seed = ro.seed;
    run.has_seed = ro.has_seed;
    run.color = color;
    if (in.files[0].verdict == AC_VERDICT_INVALID || in.analyses[0] == NULL) {
        ac_report_text(stderr, &run);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    status = ac_cli_size_attach(&in, &aopt, budget, sims, &sizing);
    if (status == 0 && pool != NULL) {
        size_t k = ac_model_find_node(in.models[0], pool);
        ac_size_options so;
        ac_error err = {0};
        size_t n = 0;
        if (k == AC_NONE || in.models[0]->nodes[k].kind != AC_NODE_POOL) {
            status = ac_cli_fail("--dispatch: '%s' is not a pool of %s", pool, in.files[0].file);
        } else {
            ac_size_options_init(&so);
            so.analysis = aopt;
            so.analysis.search = 0; /* as in ac_cli_size_attach */
            so.max_probes = budget;
            so.max_simulations = aopt.validate == AC_VALIDATE_NEVER ? 0 : sims;
            if (ac_size_dispatch_compare(in.models[0], k, &so, &rows, &n, &err) != AC_OK)
                status = ac_cli_fail("%s: size --dispatch: %s", in.files[0].file, err.message);
            in.files[0].dispatch = rows;
            in.files[0].ndispatch = n;
            in.files[0].dispatch_node = k;
        }
    }
    if (status == 0) {
        status = size_status(sizing);
        if (ac_cli_write(&run, oo.format, oo.out, stdout) != 0)
            status = AC_EXIT_USAGE;
        if (ro.report != NULL) {
            ac_report_pdf_options popt;
            ac_error err = {0};
            ac_cli_pdf_options_init(&popt, &ro);
            if (ac_report_pdf(ro.report, &run, &popt, &err) != AC_OK)
                status = ac_cli_fail("%s", err.message);
        }
    }
    free(rows);
    ac_sizing_free(sizing);
    ac_cli_input_free(&in);
    return status;
}
