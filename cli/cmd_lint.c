/*
 * archcheck lint FILE... : parse and validate only.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char lint_usage[] =
    "usage: archcheck lint [OPTIONS] FILE...\n"
    "\n"
    "Parse and validate architecture files: XML syntax, the schema, units, ranges,\n"
    "references, route probabilities, reachability. Every problem is reported as\n"
    "FILE:LINE:COLUMN: error: MESSAGE [RULE] on stdout, like check's findings (stderr\n"
    "only says what is wrong with the command line or the output).\n"
    "\n"
    "options:\n"
    "  -f, --format FMT   text (default), json or sarif\n"
    "  -o, --output FILE  write the json/sarif/text output to FILE (atomically)\n"
    "      --color WHEN   auto (default), always or never\n"
    "  -h, --help         this help\n"
    "\n"
    "exit status: 0 every file is valid, 2 a file is invalid or the command line is wrong\n";

int ac_cli_lint(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"color", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", "sarif", NULL};
    ac_cli_out_opts oo;
    ac_cli_input in;
    ac_report_run run;
    int c, status;

    ac_cli_out_opts_init(&oo, formats);
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        int taken = ac_cli_out_opts_parse(&oo, c, optarg);
        if (taken == AC_EXIT_USAGE)
            return AC_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'h': fputs(lint_usage, stdout); return AC_EXIT_PASS;
        default: fputs(lint_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    if (ac_cli_input_load_args(&in, argc, argv, "lint", lint_usage, AC_SEV_ERROR) != 0)
        return AC_EXIT_USAGE;
    for (size_t i = 0; i < in.n; i++) { /* what check refuses before solving (AC032) */
        ac_error err = {0};
        int rc;
        if (in.models[i] == NULL)
            continue;
        rc = ac_analysis_check_routing(in.models[i], &in.diags[i], &err);
        if (rc != AC_OK && rc != AC_EINPUT) {
            ac_cli_input_free(&in);
            return ac_cli_fail("%s: %s", argv[optind + (int)i], err.message);
        }
        if (rc == AC_EINPUT) {
            ac_diag_list_sort(&in.diags[i]);
            in.files[i].verdict = AC_VERDICT_INVALID;
        }
    }
    memset(&run, 0, sizeof run);
    run.command = "lint";
    run.files = in.files;
    run.nfiles = in.n;
    run.fail_on = AC_SEV_ERROR;
    run.color = oo.format == AC_FORMAT_TEXT && oo.out == NULL && ac_cli_color(oo.color, stdout);
    status = ac_cli_exit_status(&run);
    if (status != AC_EXIT_USAGE)
        status = AC_EXIT_PASS; /* lint judges validity only */
    run.has_exit_status = 1;
    run.exit_status = status;
    if (ac_cli_write(&run, oo.format, oo.out, stdout) != 0)
        status = AC_EXIT_USAGE;
    ac_cli_input_free(&in);
    return status;
}
