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
    "FILE may be - (the standard input) or a directory (searched for .xml files whose\n"
    "root element is <architecture>).\n"
    "\n"
    "options:\n"
    "  -f, --format FMT   text (default), json, sarif or gitlab (GitLab Code Quality)\n"
    "  -o, --output FILE  write the json/sarif/text output to FILE (atomically)\n"
    "      --color WHEN   auto (default), always or never\n"
    "      --no-config    do not read the project file (.archcheck.toml)\n"
    "      --select RULES  report only these rules (comma-separated, repeatable)\n"
    "      --exclude RULES do not report these rules (input errors always are)\n"
    "      --architectures-only  skip a named file whose root element is not\n"
    "                     <architecture> (a pom.xml in a pre-commit run)\n"
    "      --sarif-root DIR  sarif: artifact URIs relative to DIR (default: the\n"
    "                      working directory), named by originalUriBaseIds ROOT\n"
    "  -h, --help         this help\n"
    "\n"
    "exit status: 0 every file is valid, 2 a file is invalid or the command line is wrong\n";

static const struct option lint_opts[] = {AC_CLI_LINTER_OPTIONS, {NULL, 0, NULL, 0}};

static int lint_main(int argc, char **argv)
{
    const struct option *opts = lint_opts;
    static const char *const formats[] = {"text", "json", "sarif", "gitlab", NULL};
    ac_cli_linter_opts lo;
    const ac_cli_out_opts *oo = &lo.out;
    ac_cli_input in;
    ac_report_run run;
    int c, status, rc;

    ac_cli_linter_opts_init(&lo, formats);
    optind = 0;
    opterr = 0; /* ac_cli_bad_option says what is wrong */
    while ((c = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
        int taken = ac_cli_linter_opts_parse(&lo, c, optarg);
        if (taken == AC_EXIT_USAGE)
            return AC_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'h': fputs(lint_usage, stdout); return AC_EXIT_PASS;
        default: return ac_cli_bad_option(argv, opts, "f:o:h", lint_usage);
        }
    }
    rc = ac_cli_input_load_args(&in, argc, argv, "lint", lint_usage, AC_SEV_ERROR, lo.arch_only);
    if (rc == AC_CLI_NOTHING)
        return AC_EXIT_PASS; /* --architectures-only skipped every file */
    if (rc != 0)
        return AC_EXIT_USAGE;
    for (size_t i = 0; i < in.n; i++) { /* what check refuses before solving (AC032) */
        ac_error err = {0};
        if (in.models[i] == NULL)
            continue;
        rc = ac_analysis_check_routing(in.models[i], &in.diags[i], &err);
        if (rc != AC_OK && rc != AC_EINPUT) {
            ac_cli_input_free(&in);
            return ac_cli_fail("%s: %s", in.files[i].file, err.message);
        }
        if (rc == AC_EINPUT) {
            ac_diag_list_sort(&in.diags[i]);
            in.files[i].verdict = AC_VERDICT_INVALID;
        }
    }
    for (size_t i = 0; i < in.n; i++)
        if (ac_cli_rule_filter_apply(&lo.filter, &in.diags[i], NULL) != 0) {
            ac_cli_input_free(&in);
            return ac_cli_fail("out of memory");
        }
    memset(&run, 0, sizeof run);
    run.command = "lint";
    run.files = in.files;
    run.nfiles = in.n;
    run.sarif_root = oo->sarif_root;
    run.fail_on = AC_SEV_ERROR;
    run.color = oo->format == AC_FORMAT_TEXT && oo->out == NULL && ac_cli_color(oo->color, stdout);
    status = ac_cli_exit_status(&run);
    if (status != AC_EXIT_USAGE)
        status = AC_EXIT_PASS; /* lint judges validity only */
    run.has_exit_status = 1;
    run.exit_status = status;
    if (ac_cli_write(&run, oo->format, oo->out, stdout) != 0)
        status = AC_EXIT_USAGE;
    ac_cli_input_free(&in);
    return status;
}

int ac_cli_lint(int argc, char **argv)
{
    char **owned = NULL;
    int n = argc, status;
    if (ac_cli_config_args("lint", lint_opts, &n, &argv, &owned) != 0)
        return AC_EXIT_USAGE;
    status = lint_main(n, argv);
    ac_cli_config_free(owned, n, argc);
    return status;
}
