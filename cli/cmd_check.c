/*
 * archcheck check FILE... : validation, analysis, requirements, verdict.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char check_usage[] =
    "usage: archcheck check [OPTIONS] FILE...\n"
    "\n"
    "Check architecture files: validation, then every analysis the file asks for,\n"
    "and a verdict per file: PASS, FAIL or INCONCLUSIVE.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     text (default), json, sarif or junit\n"
    "  -o, --output FILE    write the output to FILE (atomically) instead of stdout\n"
    "      --fail-on SEV    error (default), warning or never: the least severity that fails\n"
    "      --seed N         random seed for search and simulation (default: the file's, else 1)\n"
    "      --jobs N         worker threads (default 1)\n"
    "      --no-search      skip the worst-case search\n"
    "      --validate       simulate and compare every approximation (by default the simulator\n"
    "                       runs only where an approximation's error could flip a verdict)\n"
    "      --no-validate    never simulate (undecided checks stay INCONCLUSIVE)\n"
    "      --color WHEN     auto (default), always or never\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 pass, 1 fail, 2 invalid input or command line, 3 inconclusive\n";

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
    char *end;
    unsigned long v;
    if (*s == '\0' || *s == '-' || *s == '+')
        return -1;
    v = strtoul(s, &end, 10);
    if (*end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

int ac_cli_check(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"fail-on", required_argument, NULL, 'F'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"no-search", no_argument, NULL, 'n'},
                                         {"report", required_argument, NULL, 'r'},
                                         {"validate", no_argument, NULL, 'v'},
                                         {"no-validate", no_argument, NULL, 'V'},
                                         {"color", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", "sarif", "junit", NULL};
    ac_cli_format format = AC_FORMAT_TEXT;
    const char *out = NULL, *color = "auto";
    ac_severity fail_on = AC_SEV_ERROR;
    int never = 0, c, status, has_seed = 0;
    unsigned long seed = 1, jobs = 1;
    ac_cli_input in;
    ac_report_run run;
    ac_analysis_options aopt;
    ac_validate_mode validate = AC_VALIDATE_AUTO;

    optind = 0;
    while ((c = getopt_long(argc, argv, "f:o:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (ac_cli_parse_format(optarg, formats, &format) != 0)
                return AC_EXIT_USAGE;
            break;
        case 'o': out = optarg; break;
        case 'F':
            if (strcmp(optarg, "error") == 0)
                fail_on = AC_SEV_ERROR;
            else if (strcmp(optarg, "warning") == 0)
                fail_on = AC_SEV_WARNING;
            else if (strcmp(optarg, "never") == 0)
                never = 1;
            else
                return ac_cli_fail("--fail-on takes error, warning or never: got '%s'", optarg);
            break;
        case 's':
            if (parse_ulong(optarg, 4294967295ul, &seed) != 0)
                return ac_cli_fail("--seed takes a whole number from 0 to 4294967295: got '%s'",
                                   optarg);
            has_seed = 1;
            break;
        case 'j':
            if (parse_ulong(optarg, 256, &jobs) != 0 || jobs == 0)
                return ac_cli_fail("--jobs takes a whole number from 1 to 256: got '%s'", optarg);
            break;
        case 'n': break;
        case 'v': validate = AC_VALIDATE_ALWAYS; break;
        case 'V': validate = AC_VALIDATE_NEVER; break;
        case 'r':
            return ac_cli_fail("--report: the PDF report is not available in archcheck %s yet",
                               AC_VERSION);
        case 'c':
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
                strcmp(optarg, "never") != 0)
                return ac_cli_fail("--color takes auto, always or never");
            color = optarg;
            break;
        case 'h': fputs(check_usage, stdout); return AC_EXIT_PASS;
        default: fputs(check_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fputs(check_usage, stderr);
        return ac_cli_fail("check: no input file");
    }
    if (ac_cli_input_load(&in, argv + optind, (size_t)(argc - optind), fail_on) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    ac_analysis_options_init(&aopt);
    aopt.validate = validate;
    aopt.sim.seed = seed;
    if (ac_cli_input_analyse(&in, &aopt, fail_on, has_seed) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    memset(&run, 0, sizeof run);
    run.command = "check";
    run.files = in.files;
    run.nfiles = in.n;
    run.fail_on = fail_on;
    run.seed = seed;
    run.has_seed = has_seed;
    run.color = format == AC_FORMAT_TEXT && out == NULL && ac_cli_color(color, stdout);
    status = ac_cli_exit_status(&run);
    if (never && status != AC_EXIT_USAGE)
        status = AC_EXIT_PASS;
    if (ac_cli_write(&run, format, out, stdout) != 0)
        status = AC_EXIT_USAGE;
    ac_cli_input_free(&in);
    return status;
}
