/*
 * archcheck solve FILE : the steady state of every node and end to end.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/atomic.h"

static const char solve_usage[] =
    "usage: archcheck solve [OPTIONS] FILE\n"
    "\n"
    "Solve the steady state of the architecture: every node's arrival rate, its\n"
    "equilibria (stability, eigenvalues, Lyapunov evidence), utilisation, loss, mean\n"
    "jobs and response-time percentiles, the end-to-end response time and the headroom.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     text (default), json or csv (the response-time distributions:\n"
    "                       P(T > t) per node and end to end)\n"
    "  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
    "      --refine WHEN    auto (default: refined mean field below 100 servers), always, never\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 solved, 2 invalid input or command line, 3 a node could not be solved\n";

int ac_cli_solve(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"refine", required_argument, NULL, 'r'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *format = "text", *out = NULL;
    ac_analysis_options aopt;
    ac_cli_input in;
    ac_report_run run;
    int c, status = AC_EXIT_PASS, rc = AC_OK;

    ac_analysis_options_init(&aopt);
    aopt.validate = AC_VALIDATE_NEVER;
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0 &&
                strcmp(optarg, "csv") != 0)
                return ac_cli_fail("unknown format '%s' (allowed: text json csv)", optarg);
            format = optarg;
            break;
        case 'o': out = optarg; break;
        case 'r':
            if (strcmp(optarg, "auto") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_AUTO;
            else if (strcmp(optarg, "always") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_ALWAYS;
            else if (strcmp(optarg, "never") == 0)
                aopt.solver.refine = AC_SOLVER_REFINE_NEVER;
            else
                return ac_cli_fail("--refine takes auto, always or never: got '%s'", optarg);
            break;
        case 'h': fputs(solve_usage, stdout); return AC_EXIT_PASS;
        default: fputs(solve_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        fputs(solve_usage, stderr);
        return ac_cli_fail("solve: exactly one input file is needed");
    }
    if (ac_cli_input_load(&in, argv + optind, 1, AC_SEV_ERROR) != 0 ||
        ac_cli_input_analyse(&in, &aopt, AC_SEV_ERROR, 0) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    memset(&run, 0, sizeof run);
    run.command = "solve";
    run.files = in.files;
    run.nfiles = 1;
    run.fail_on = AC_SEV_ERROR;
    if (in.files[0].verdict == AC_VERDICT_INVALID || in.analyses[0] == NULL) {
        ac_report_text(stderr, &run);
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    for (size_t i = 0; i < in.analyses[0]->nnodes; i++)
        if (!in.analyses[0]->nodes[i].analysed)
            status = AC_EXIT_INCONCLUSIVE;
    if (strcmp(format, "json") == 0) {
        if (ac_cli_write(&run, AC_FORMAT_JSON, out, stdout) != 0)
            status = AC_EXIT_USAGE;
    } else {
        ac_atomic_file f;
        ac_error err = {0};
        FILE *fp = stdout;
        if (out != NULL && strcmp(out, "-") != 0) {
            if (ac_atomic_open(&f, out, &err) != AC_OK) {
                ac_cli_input_free(&in);
                return ac_cli_fail("%s", err.message);
            }
            fp = f.fp;
        }
        rc = strcmp(format, "csv") == 0 ? ac_report_csv(fp, &in.files[0])
                                        : ac_report_solution_text(fp, &in.files[0]);
        if (fp != stdout) {
            if (rc != AC_OK)
                ac_atomic_abort(&f);
            else if (ac_atomic_commit(&f, &err) != AC_OK)
                rc = ac_cli_fail("%s", err.message);
        }
        if (rc != AC_OK)
            status = AC_EXIT_USAGE;
    }
    ac_cli_input_free(&in);
    return status;
}
