/*
 * archcheck check FILE... : validation, analysis, requirements, verdict.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/baseline.h"
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
    "      --report OUT.pdf also write the PDF report (verdict, checks, findings, a page per\n"
    "                       node, end to end, how the numbers were obtained); byte-identical\n"
    "                       for the same input and seed. Fonts: DejaVu Sans, from\n"
    "                       $ARCHCHECK_FONT_DIR or /usr/share/fonts/truetype/dejavu\n"
    "      --timestamp      date the PDF (CreationDate): $SOURCE_DATE_EPOCH if set, else now\n"
    "      --baseline FILE  findings recorded in FILE are reported as suppressed (\"in\n"
    "                       baseline\") and do not fail the verdict; new ones still do\n"
    "      --write-baseline FILE  record the current findings in FILE (by rule, node and a\n"
    "                       fingerprint of the message, not by line) and accept them\n"
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

/* --write-baseline records the findings (and then accepts them); --baseline suppresses the
 * recorded ones. Verdicts are recomputed. Returns 0 or AC_EXIT_USAGE after printing why. */
static int apply_baselines(ac_cli_input *in, const char *path, const char *write_path,
                           ac_severity fail_on)
{
    ac_baseline b;
    ac_error err = {0};
    if (write_path != NULL) {
        memset(&b, 0, sizeof b);
        for (size_t i = 0; i < in->n; i++)
            if (in->files[i].verdict != AC_VERDICT_INVALID &&
                ac_baseline_add(&b, in->files[i].file, &in->diags[i]) != AC_OK) {
                ac_baseline_free(&b);
                return ac_cli_fail("out of memory");
            }
        if (ac_baseline_write(&b, write_path, &err) != AC_OK) {
            ac_baseline_free(&b);
            return ac_cli_fail("%s", err.message);
        }
        for (size_t i = 0; i < in->n; i++)
            if (ac_baseline_apply(&b, in->files[i].file, &in->diags[i], in->analyses[i]) < 0) {
                ac_baseline_free(&b);
                return ac_cli_fail("out of memory");
            }
        ac_baseline_free(&b);
    }
    if (path != NULL) {
        if (ac_baseline_load(&b, path, &err) != AC_OK)
            return ac_cli_fail("%s", err.message);
        for (size_t i = 0; i < in->n; i++)
            if (ac_baseline_apply(&b, in->files[i].file, &in->diags[i], in->analyses[i]) < 0) {
                ac_baseline_free(&b);
                return ac_cli_fail("out of memory");
            }
        ac_baseline_free(&b);
    }
    if (path != NULL || write_path != NULL)
        for (size_t i = 0; i < in->n; i++)
            if (in->files[i].verdict != AC_VERDICT_INVALID)
                in->files[i].verdict = ac_report_verdict(&in->diags[i], fail_on);
    return 0;
}

/* The PDF report; --timestamp dates it ($SOURCE_DATE_EPOCH if set, for reproducible builds). */
static int write_report(const ac_report_run *run, const char *path, int timestamp)
{
    ac_report_pdf_options opt;
    ac_error err = {0};
    ac_report_pdf_options_init(&opt);
    opt.font_dir = getenv("ARCHCHECK_FONT_DIR");
    if (opt.font_dir != NULL && opt.font_dir[0] == '\0')
        opt.font_dir = NULL;
    if (timestamp) {
        const char *epoch = getenv("SOURCE_DATE_EPOCH");
        unsigned long v;
        opt.has_creation_date = 1;
        if (epoch != NULL && parse_ulong(epoch, 253402300799ul, &v) == 0)
            opt.creation_date = (long long)v;
        else
            opt.creation_date = (long long)time(NULL);
    }
    if (ac_report_pdf(path, run, &opt, &err) != AC_OK)
        return ac_cli_fail("%s", err.message);
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
                                         {"timestamp", no_argument, NULL, 'T'},
                                         {"baseline", required_argument, NULL, 'b'},
                                         {"write-baseline", required_argument, NULL, 'B'},
                                         {"validate", no_argument, NULL, 'v'},
                                         {"no-validate", no_argument, NULL, 'V'},
                                         {"color", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", "sarif", "junit", NULL};
    ac_cli_format format = AC_FORMAT_TEXT;
    const char *out = NULL, *color = "auto", *report = NULL, *baseline = NULL,
               *write_baseline = NULL;
    int timestamp = 0;
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
        case 'r': report = optarg; break;
        case 'T': timestamp = 1; break;
        case 'b': baseline = optarg; break;
        case 'B': write_baseline = optarg; break;
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
    if (apply_baselines(&in, baseline, write_baseline, fail_on) != 0) {
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
    if (report != NULL && write_report(&run, report, timestamp) != 0)
        status = AC_EXIT_USAGE;
    ac_cli_input_free(&in);
    return status;
}
