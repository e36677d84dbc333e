/*
 * archcheck check FILE... : validation, analysis, requirements, verdict.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/search.h"
#include "cli/baseline.h"
#include "cli/cli.h"

static const char check_usage[] =
    "usage: archcheck check [OPTIONS] FILE...\n"
    "\n"
    "Check architecture files: validation, then every analysis the file asks for,\n"
    "and a verdict per file: PASS, FAIL or INCONCLUSIVE.\n"
    "\n"
    "FILE may be - (the standard input) or a directory (searched for .xml files whose\n"
    "root element is <architecture>).\n"
    "\n"
    "options:\n"
    "  -f, --format FMT     text (default), json, sarif, junit or gitlab (GitLab Code\n"
    "                       Quality JSON)\n"
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
    "      --jobs N         worker threads for the worst-case search (at most 64 are used)\n"
    "                       and the validating simulation's replications (same output)\n"
    "      --no-search      skip the worst-case search (<resilience> requirements are then\n"
    "                       INCONCLUSIVE)\n"
    "      --confirm-events N  event budget of the simulation confirming each worst case\n"
    "                       (over its replications; default 50000000)\n"
    "      --validate       simulate and compare every approximation (by default the simulator\n"
    "                       runs only where an approximation's error could flip a verdict)\n"
    "      --no-validate    never simulate (undecided checks stay INCONCLUSIVE)\n"
    "      --size           add the sizing (as `archcheck size`): the smallest counts meeting\n"
    "                       the requirements, in the text, the JSON (\"sizing\") and the PDF\n"
    "      --color WHEN     auto (default), always or never\n"
    "      --no-config      do not read the project file (.archcheck.toml, the\n"
    "                       nearest from the working directory up)\n"
    "      --select RULES   report only these rules (ids, comma-separated, repeatable)\n"
    "      --exclude RULES  do not report these rules (as a <suppress> would); input\n"
    "                       errors and AC900 are always reported\n"
    "      --architectures-only  skip a named file whose root element is not\n"
    "                       <architecture> (a pom.xml in a pre-commit run)\n"
    "      --sarif-root DIR sarif: artifact URIs relative to DIR (default: the working\n"
    "                       directory), named by originalUriBaseIds ROOT\n"
    "      --verbose        text: list every check (its value with the stated error, the\n"
    "                       limit, the status, the simulation's estimate), as json and the\n"
    "                       PDF do\n"
    "  -q, --quiet          no progress bar (it is drawn on stderr only when stderr is a\n"
    "                       terminal, and never changes the output)\n"
    "  -h, --help           this help\n"
    "\n"
    "exit status: 0 pass, 1 fail, 2 invalid input or command line, 3 inconclusive\n";

/* Apply the baseline to every input. Returns 0, or AC_EXIT_USAGE after printing why. */
static int apply_baseline(const ac_baseline *b, ac_cli_input *in)
{
    for (size_t i = 0; i < in->n; i++)
        if (ac_baseline_apply(b, in->files[i].file, &in->diags[i], in->analyses[i]) < 0)
            return ac_cli_fail("out of memory");
    return 0;
}

/* --write-baseline records the findings (and then accepts them); --baseline suppresses the
 * recorded ones. Verdicts are recomputed. Returns 0 or AC_EXIT_USAGE after printing why. */
static int apply_baselines(ac_cli_input *in, const char *path, const char *write_path,
                           ac_severity fail_on)
{
    ac_baseline b;
    ac_error err = {0};
    int rc;
    if (write_path != NULL) {
        if (ac_baseline_init(&b, write_path) != AC_OK)
            return ac_cli_fail("out of memory");
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
        rc = apply_baseline(&b, in);
        ac_baseline_free(&b);
        if (rc != 0)
            return rc;
    }
    if (path != NULL) {
        if (ac_baseline_load(&b, path, &err) != AC_OK) {
            ac_baseline_free(&b); /* what the load had built (its directory) */
            return ac_cli_fail("%s", err.message);
        }
        rc = apply_baseline(&b, in);
        ac_baseline_free(&b);
        if (rc != 0)
            return rc;
    }
    if (path != NULL || write_path != NULL)
        for (size_t i = 0; i < in->n; i++)
            if (in->files[i].verdict != AC_VERDICT_INVALID)
                in->files[i].verdict = ac_report_verdict(&in->diags[i], fail_on);
    return 0;
}

/* The PDF report (see ac_cli_pdf_options_init for its fonts and date). */
static int write_report(const ac_report_run *run, const ac_cli_run_opts *ro)
{
    ac_report_pdf_options opt;
    ac_error err = {0};
    ac_cli_pdf_options_init(&opt, ro);
    if (ac_report_pdf(ro->report, run, &opt, &err) != AC_OK)
        return ac_cli_fail("%s", err.message);
    return 0;
}

static const struct option check_opts[] = {AC_CLI_LINTER_OPTIONS,
                                           {"fail-on", required_argument, NULL, 'F'},
                                           {"seed", required_argument, NULL, 's'},
                                           {"jobs", required_argument, NULL, 'j'},
                                           {"no-search", no_argument, NULL, 'n'},
                                           {"confirm-events", required_argument, NULL, 'E'},
                                           {"report", required_argument, NULL, 'r'},
                                           {"timestamp", no_argument, NULL, 'T'},
                                           {"baseline", required_argument, NULL, 'b'},
                                           {"write-baseline", required_argument, NULL, 'B'},
                                           {"validate", no_argument, NULL, 'v'},
                                           {"no-validate", no_argument, NULL, 'V'},
                                           {"size", no_argument, NULL, 'Z'},
                                           {"quiet", no_argument, NULL, 'q'},
                                           {"verbose", no_argument, NULL, 'L'},
                                           {NULL, 0, NULL, 0}};

static int check_main(int argc, char **argv)
{
    const struct option *opts = check_opts;
    static const char *const formats[] = {"text", "json", "sarif", "junit", "gitlab", NULL};
    const char *baseline = NULL, *write_baseline = NULL;
    ac_severity fail_on = AC_SEV_ERROR;
    int never = 0, no_search = 0, quiet = 0, verbose = 0, c, status, rc, size = 0;
    ac_sizing **sizings = NULL;
    ac_cli_progress bar;
    unsigned long jobs = 1, confirm_events = 0;
    ac_cli_run_opts ro;
    ac_cli_linter_opts lo;
    const ac_cli_out_opts *oo = &lo.out;
    ac_cli_input in;
    ac_report_run run;
    ac_analysis_options aopt;

    ac_cli_run_opts_init(&ro);
    ac_cli_linter_opts_init(&lo, formats);
    optind = 0;
    opterr = 0; /* ac_cli_bad_option says what is wrong */
    while ((c = getopt_long(argc, argv, "f:o:j:qh", opts, NULL)) != -1) {
        int taken = ac_cli_run_opts_parse(&ro, c, optarg);
        if (taken == 0)
            taken = ac_cli_linter_opts_parse(&lo, c, optarg);
        if (taken == AC_EXIT_USAGE)
            return AC_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
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
        case 'j':
            if (ac_cli_ulong_parse(optarg, 256, &jobs) != 0 || jobs == 0)
                return ac_cli_fail("--jobs takes a whole number from 1 to 256: got '%s'", optarg);
            break;
        case 'n': no_search = 1; break;
        case 'E':
            if (ac_cli_ulong_parse(optarg, 1000000000000ul, &confirm_events) != 0 ||
                confirm_events == 0)
                return ac_cli_fail("--confirm-events takes a whole number from 1 to 10^12: "
                                   "got '%s'",
                                   optarg);
            break;
        case 'Z': size = 1; break;
        case 'q': quiet = 1; break;
        case 'L': verbose = 1; break;
        case 'b': baseline = optarg; break;
        case 'B': write_baseline = optarg; break;
        case 'h': fputs(check_usage, stdout); return AC_EXIT_PASS;
        default: return ac_cli_bad_option(argv, opts, "f:o:j:qh", check_usage);
        }
    }
    rc = ac_cli_input_load_args(&in, argc, argv, "check", check_usage, fail_on, lo.arch_only);
    if (rc == AC_CLI_NOTHING)
        return AC_EXIT_PASS; /* --architectures-only skipped every file */
    if (rc != 0)
        return AC_EXIT_USAGE;
    ac_cli_run_opts_apply(&ro, &aopt);
    aopt.search = !no_search;
    aopt.search_jobs = jobs > AC_SEARCH_JOBS_MAX ? AC_SEARCH_JOBS_MAX : (size_t)jobs;
    aopt.sim.jobs = (size_t)jobs; /* the validating simulation's replications (same bytes) */
    aopt.search_confirm_events = confirm_events;
    ac_cli_progress_init(&bar, "check", quiet, stderr);
    if (bar.on) {
        aopt.sim.progress = ac_cli_progress_update;
        aopt.sim.progress_ctx = &bar;
    }
    rc = ac_cli_input_analyse(&in, &aopt, fail_on, ro.has_seed);
    ac_cli_progress_end(&bar);
    if (rc != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    for (size_t i = 0; i < in.n; i++) {
        if (in.files[i].verdict == AC_VERDICT_INVALID)
            continue;
        if (ac_cli_unused_suppressions(in.models[i], in.files[i].file, &in.diags[i]) != 0 ||
            ac_cli_rule_filter_apply(&lo.filter, &in.diags[i], in.analyses[i]) != 0) {
            ac_cli_input_free(&in);
            return ac_cli_fail("out of memory");
        }
        in.files[i].verdict = ac_report_verdict(&in.diags[i], fail_on);
    }
    if (apply_baselines(&in, baseline, write_baseline, fail_on) != 0) {
        ac_cli_input_free(&in);
        return AC_EXIT_USAGE;
    }
    if (size) {
        int oom = (sizings = calloc(in.n > 0 ? in.n : 1, sizeof *sizings)) == NULL;
        if (oom || ac_cli_size_attach(&in, &aopt, 4000, 8, sizings) != 0) {
            for (size_t i = 0; !oom && i < in.n; i++)
                ac_sizing_free(sizings[i]);
            free(sizings);
            ac_cli_input_free(&in);
            return oom ? ac_cli_fail("out of memory") : AC_EXIT_USAGE;
        }
    }
    memset(&run, 0, sizeof run);
    run.command = "check";
    run.files = in.files;
    run.nfiles = in.n;
    run.sarif_root = oo->sarif_root;
    run.fail_on = fail_on;
    run.seed = ro.seed;
    run.has_seed = ro.has_seed;
    run.color = oo->format == AC_FORMAT_TEXT && oo->out == NULL && ac_cli_color(oo->color, stdout);
    status = ac_cli_exit_status(&run);
    if (never && status != AC_EXIT_USAGE)
        status = AC_EXIT_PASS;
    run.fail_never = never;
    run.verbose = verbose;
    run.has_exit_status = 1;
    run.exit_status = status;
    if (ac_cli_write(&run, oo->format, oo->out, stdout) != 0)
        status = AC_EXIT_USAGE;
    if (ro.report != NULL && write_report(&run, &ro) != 0)
        status = AC_EXIT_USAGE;
    for (size_t i = 0; sizings != NULL && i < in.n; i++)
        ac_sizing_free(sizings[i]);
    free(sizings);
    ac_cli_input_free(&in);
    return status;
}

int ac_cli_check(int argc, char **argv)
{
    char **owned = NULL;
    int n = argc, status;
    if (ac_cli_config_args("check", check_opts, &n, &argv, &owned) != 0)
        return AC_EXIT_USAGE;
    status = check_main(n, argv);
    ac_cli_config_free(owned, n, argc);
    return status;
}
