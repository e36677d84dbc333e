/*
 * archcheck compare FILE [FILE2] : the baseline and every mitigation of FILE (or the two
 * files) analysed alike and put side by side, a row per check and per KPI.
 *
 * Each mitigation is applied to its own deep copy of the model (ac_model_clone,
 * ac_model_apply_mitigation) and analysed exactly as `check` analyses a file (validation by
 * simulation where an approximation's error could flip a check, the same seed for every
 * variant), but for the <resilience> requirements: their worst-case searches run only with
 * --search (minutes each on a real fault space), else they are INCONCLUSIVE with the reason and
 * a note says so. The exit status says whether the comparison was produced, not whether a variant
 * passes: 0 produced, 2 invalid input or command line, 3 some variant could not be analysed.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/analysis.h"
#include "archcheck/confirm.h"
#include "archcheck/model.h"
#include "archcheck/search.h"
#include "cli/cli.h"

static const char compare_usage[] =
    "usage: archcheck compare [OPTIONS] FILE [FILE2]\n"
    "\n"
    "Put the baseline of FILE and every one of its mitigations (or FILE and FILE2) side by\n"
    "side: a row per requirement check and per KPI (each node's utilisation, mean and p95\n"
    "response time and loss; end-to-end mean, p95 and p99; headroom), a column per variant\n"
    "with its verdict, and the best value of each row marked.\n"
    "\n"
    "options:\n"
    "  -f, --format FMT      text (default) or json\n"
    "  -o, --output FILE     write the output to FILE (atomically) instead of stdout\n"
    "      --report OUT.pdf  also write the comparison as a PDF (table, headroom per variant);\n"
    "                        byte-identical for the same input and seed\n"
    "      --timestamp       date the PDF: $SOURCE_DATE_EPOCH if set, else now\n"
    "  -m, --mitigation ID   compare only these mitigations (repeatable; default: all)\n"
    "      --seed N          random seed for validation by simulation (default: the file's,\n"
    "                        else 1); every variant uses the same seed\n"
    "      --validate        simulate and compare every approximation\n"
    "      --no-validate     never simulate\n"
    "      --search          run the worst-case fault search (the file's <faults>): every\n"
    "                        variant's <resilience> requirements are checked as by `check`\n"
    "                        (without --search they are INCONCLUSIVE, not computed), and\n"
    "                        rows are added: each variant's worst-case score at its\n"
    "                        workload, its resilience boundary B_r and gain R_g (the fluid\n"
    "                        study of `search --mitigation all`, declared mitigations only)\n"
    "  -h, --help            this help\n"
    "\n"
    "exit status: 0 the comparison was produced (whatever the verdicts), 2 invalid input or\n"
    "command line, 3 some variant could not be analysed (e.g. a mitigation not modelled)\n";

#define NOTE_MAX 1024

/* Why a variant's <resilience> requirement is not computed without --search. */
#define SEARCH_SKIPPED "not computed: compare runs the worst-case search only with --search"

/* Everything one run owns. */
typedef struct compare_state {
    ac_cli_input in;
    ac_compare_variant *variants;
    ac_model **models; /* the clones (mitigations), NULL for the inputs' own models */
    ac_analysis **analyses;
    ac_diag_list *diags;
    char (*changes)[NOTE_MAX];
    char (*errors)[NOTE_MAX];
    size_t n;
    ac_analysis_confirmation worst_conf; /* compare --search: the baseline's worst case */
} compare_state;

static void state_free(compare_state *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->analyses != NULL)
            ac_analysis_free(s->analyses[i]);
        if (s->models != NULL)
            ac_model_free(s->models[i]);
        if (s->diags != NULL)
            ac_diag_list_clear(&s->diags[i]);
    }
    free(s->variants);
    free(s->models);
    free(s->analyses);
    free(s->diags);
    free(s->changes);
    free(s->errors);
    ac_cli_input_free(&s->in);
}

static int state_alloc(compare_state *s, size_t n)
{
    s->n = n;
    s->variants = calloc(n, sizeof *s->variants);
    s->models = calloc(n, sizeof *s->models);
    s->analyses = calloc(n, sizeof *s->analyses);
    s->diags = calloc(n, sizeof *s->diags);
    s->changes = calloc(n, sizeof *s->changes);
    s->errors = calloc(n, sizeof *s->errors);
    return s->variants != NULL && s->models != NULL && s->analyses != NULL && s->diags != NULL &&
                   s->changes != NULL && s->errors != NULL
               ? 0
               : -1;
}

/* Analyse variant v (its model already set). Returns 0, or AC_EXIT_USAGE on a fatal error
 * (out of memory); a variant that cannot be analysed gets its error and no analysis. */
static int analyse_variant(compare_state *s, size_t v, const ac_analysis_options *opt)
{
    ac_compare_variant *x = &s->variants[v];
    ac_error err = {0};
    int rc = ac_analysis_run(x->model, opt, &s->analyses[v], &s->diags[v], &err);
    if (rc == AC_ENOMEM)
        return ac_cli_fail("%s: %s", x->file, err.message);
    if (rc != AC_OK || s->analyses[v] == NULL) {
        ac_analysis_free(s->analyses[v]);
        s->analyses[v] = NULL;
        snprintf(s->errors[v], NOTE_MAX, "%s",
                 err.code != 0 ? err.message : "the analysis failed (see the findings)");
        x->error = s->errors[v];
        return 0;
    }
    ac_diag_list_sort(&s->diags[v]);
    x->analysis = s->analyses[v];
    x->diags = &s->diags[v];
    x->verdict = ac_report_verdict(&s->diags[v], AC_SEV_ERROR);
    return 0;
}

/* The baseline's worst case at the design's workload (the plan of its worst_score) re-run
 * in the simulator by the confirmation of `search` and check (analysis/confirm.c): the
 * sequential test against tau, at most 10 replications, the file's seed; into
 * s->worst_conf and column 0. */
static int confirm_worst(compare_state *s, const ac_model *m, const ac_search_study *st,
                         const ac_search_study_options *o, ac_error *err)
{
    ac_analysis_confirm_options co;
    ac_compare_variant *x = &s->variants[0];
    int rc;
    ac_analysis_confirm_options_init(&co);
    co.sequential = 1;
    co.tau = st->tau;
    if (m->faults.has_seed)
        co.seed = m->faults.seed;
    rc = ac_analysis_confirm(m, st->score_worst, st->nfaults, o->score_at,
                             ac_transient_horizon(m, &o->transient), st->score_terms, st->nterms,
                             st->variants[0].worst_score, &co, &s->worst_conf, err);
    if (rc != 0)
        return rc;
    x->has_worst_sim = 1;
    x->worst_sim_computed = s->worst_conf.computed;
    x->worst_sim = s->worst_conf.score;
    x->worst_sim_ci95 = s->worst_conf.ci95;
    x->worst_sim_replications = s->worst_conf.replications;
    x->worst_sim_level = s->worst_conf.level;
    x->worst_sim_why = s->worst_conf.why[0] != '\0' ? s->worst_conf.why : NULL;
    return 0;
}

/* compare --search: the study of the declared mitigations, its numbers on the columns of the
 * same id (the baseline's on column 0), and the baseline's worst case simulated. 0, or
 * AC_EXIT_INCONCLUSIVE after saying why. */
static int add_search(compare_state *s, size_t nvar, const ac_model *m, const char *file)
{
    ac_search_study_options o;
    ac_search_study *st = NULL;
    ac_error err = {0};
    ac_search_study_options_init(&o);
    o.combinations = 0;
    if (m->faults.has_budget)
        o.search.budget = m->faults.budget;
    if (m->faults.has_seed)
        o.search.seed = m->faults.seed;
    if (!m->faults.present || ac_search_study_run(m, &o, &st, &err) != 0) {
        fprintf(stderr, "archcheck: %s: no search rows: %s\n", file,
                m->faults.present ? err.message : "the file has no <faults>");
        return AC_EXIT_INCONCLUSIVE;
    }
    if (!st->variants[0].computed)
        fprintf(stderr, "archcheck: %s: the search rows are not computed: %s\n", file,
                st->variants[0].why);
    for (size_t v = 0; v < nvar; v++)
        for (size_t i = 0; i < st->nvariants; i++) {
            const ac_search_variant *sv = &st->variants[i];
            ac_compare_variant *x = &s->variants[v];
            if ((v == 0) != (i == 0) || (i > 0 && strcmp(sv->id, x->id) != 0))
                continue;
            x->has_search = 1;
            x->worst_score = sv->computed ? sv->worst_score : NAN;
            x->resilience_boundary =
                sv->computed && sv->own.status == AC_SEARCH_BOUNDARY_FOUND ? sv->own.rate : NAN;
            x->resilience_gain = sv->computed ? sv->gain : NAN;
        }
    if (st->variants[0].computed && st->score_worst != NULL &&
        confirm_worst(s, m, st, &o, &err) != 0)
        fprintf(stderr, "archcheck: %s: the worst case is not simulated: %s\n", file, err.message);
    ac_search_study_free(st);
    return 0;
}

/* The PDF (see ac_cli_pdf_options_init for its fonts and date). */
static int write_pdf(const ac_compare_run *run, const ac_cli_run_opts *ro)
{
    ac_report_pdf_options opt;
    ac_error err = {0};
    ac_cli_pdf_options_init(&opt, ro);
    if (ac_report_compare_pdf(ro->report, run, &opt, &err) != AC_OK)
        return ac_cli_fail("%s", err.message);
    return 0;
}

typedef struct output_ctx {
    const ac_compare_run *run;
    int json;
} output_ctx;

static int write_compare(FILE *fp, const void *ctx)
{
    const output_ctx *c = ctx;
    return c->json ? ac_report_compare_json(fp, c->run) : ac_report_compare_text(fp, c->run);
}

/* Write the text or JSON to out_path (atomically) or stdout. */
static int write_output(const ac_compare_run *run, int json, const char *out_path)
{
    const output_ctx c = {run, json};
    return ac_cli_emit(out_path, stdout, write_compare, &c);
}

/* 1 when an input states a <resilience> requirement (each needs a search per variant). */
static int has_resilience(const ac_cli_input *in, size_t nfiles)
{
    for (size_t f = 0; f < nfiles; f++)
        for (size_t k = 0; k < in->models[f]->nrequirements; k++)
            if (in->models[f]->requirements[k].kind == AC_REQ_RESILIENCE)
                return 1;
    return 0;
}

static const char *model_label(const ac_model *m)
{
    return m->label != NULL ? m->label : m->name;
}

/* The inputs' findings on stderr when one is invalid, and every mitigation of `only` known to
 * the one file. Returns 0 or the exit status. */
static int inputs_check(const ac_cli_input *in, size_t nfiles, const char **only, size_t nonly)
{
    ac_report_run lint;

    memset(&lint, 0, sizeof lint);
    lint.command = "compare";
    lint.files = in->files;
    lint.nfiles = nfiles;
    lint.fail_on = AC_SEV_ERROR;
    for (size_t f = 0; f < nfiles; f++)
        if (in->files[f].verdict == AC_VERDICT_INVALID) {
            ac_report_text(stderr, &lint);
            return AC_EXIT_USAGE;
        }
    for (size_t k = 0; k < nonly; k++) {
        const ac_model *m = in->models[0];
        size_t j = 0;
        while (j < m->nmitigations && strcmp(m->mitigations[j].id, only[k]) != 0)
            j++;
        if (j == m->nmitigations)
            return ac_cli_fail("%s has no mitigation '%s'", in->files[0].file, only[k]);
    }
    return 0;
}

/* A variant per mitigation of the one file (those of `only` when nonly > 0), each on its own
 * copy of the model, from variant *v on (*v: past the last). Returns 0 or the exit status. */
static int mitigation_variants(compare_state *s, size_t *v, const char **only, size_t nonly,
                               const ac_analysis_options *aopt)
{
    for (size_t j = 0; j < s->in.models[0]->nmitigations; j++) {
        const ac_mitigation *mt = &s->in.models[0]->mitigations[j];
        ac_compare_variant *x;
        ac_error err = {0};
        int wanted = nonly == 0, rc;
        for (size_t k = 0; k < nonly; k++)
            wanted |= strcmp(only[k], mt->id) == 0;
        if (!wanted)
            continue;
        x = &s->variants[*v];
        x->id = mt->id;
        x->kind = ac_mitigation_kind_name(mt->kind);
        x->label = mt->label;
        x->file = s->in.files[0].file;
        if (ac_model_clone(s->in.models[0], &s->models[*v], &err) != AC_OK)
            return ac_cli_fail("%s", err.message);
        rc = ac_model_apply_mitigation(s->models[*v], j, s->changes[*v], NOTE_MAX, &err);
        x->changes = s->changes[*v];
        if (rc == AC_ENOMEM)
            return ac_cli_fail("%s", err.message);
        if (rc != AC_OK) {
            snprintf(s->errors[*v], NOTE_MAX, "%s", err.message);
            x->error = s->errors[*v];
        } else {
            x->model = s->models[*v];
            if (analyse_variant(s, *v, aopt) != 0)
                return AC_EXIT_USAGE;
        }
        (*v)++;
    }
    return 0;
}

/* The command line of compare. */
typedef struct compare_args {
    const char **only; /* --mitigation ids (argc + 1 slots) */
    size_t nonly, nfiles;
    int search;
    ac_cli_run_opts ro;
    ac_cli_out_opts oo;
} compare_args;

/* Parses argv into out (out->only owned by the caller, freed even on failure). Returns -1 to
 * go on, else the exit status (--help, a usage error). */
static int parse_args(int argc, char **argv, compare_args *out)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"report", required_argument, NULL, 'r'},
                                         {"timestamp", no_argument, NULL, 'T'},
                                         {"mitigation", required_argument, NULL, 'm'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"validate", no_argument, NULL, 'v'},
                                         {"no-validate", no_argument, NULL, 'V'},
                                         {"search", no_argument, NULL, 'S'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", NULL};
    int c;
    memset(out, 0, sizeof *out);
    out->only = calloc((size_t)argc + 1, sizeof *out->only);
    if (out->only == NULL)
        return ac_cli_fail("out of memory");
    ac_cli_run_opts_init(&out->ro);
    ac_cli_out_opts_init(&out->oo, formats);
    optind = 0;
    while ((c = getopt_long(argc, argv, "f:o:m:h", opts, NULL)) != -1) {
        int taken = ac_cli_run_opts_parse(&out->ro, c, optarg);
        if (taken == 0)
            taken = ac_cli_out_opts_parse(&out->oo, c, optarg);
        if (taken == AC_EXIT_USAGE)
            return AC_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'm': out->only[out->nonly++] = optarg; break;
        case 'S': out->search = 1; break;
        case 'h': fputs(compare_usage, stdout); return AC_EXIT_PASS;
        default: fputs(compare_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    out->nfiles = optind < argc ? (size_t)(argc - optind) : 0;
    if (out->nfiles < 1 || out->nfiles > 2) {
        fputs(compare_usage, stderr);
        return ac_cli_fail("compare: one or two input files are needed");
    }
    if (out->nfiles == 2 && out->nonly > 0)
        return ac_cli_fail("compare: --mitigation applies to one file, not to two");
    return -1;
}

/* The analysis options of every variant: the transient whenever every input has a profile
 * (the comparison's cold-start and throttle rows read it), the file's search seed, and no
 * search without --search (a search per <resilience> requirement per variant: minutes on a
 * real fault space). */
static void compare_options(const compare_state *s, const compare_args *a, ac_analysis_options *out)
{
    int all = 1;
    ac_cli_run_opts_apply(&a->ro, out);
    for (size_t f = 0; f < a->nfiles; f++)
        all = all && s->in.models[f]->nprofiles > 0;
    if (all)
        out->transient = AC_TRANSIENT_ALWAYS;
    if (!a->ro.has_seed && s->in.models[0]->faults.has_seed)
        out->sim.seed = s->in.models[0]->faults.seed;
    if (!a->search) {
        out->search = 0;
        out->search_skipped = SEARCH_SKIPPED;
    }
}

/* The reference (the baseline, or the first file, then the second file) and each mitigation
 * on its own copy of the model; *nvar the variants made. Returns 0 or the exit status. */
static int compare_variants(compare_state *s, const compare_args *a,
                            const ac_analysis_options *aopt, size_t *nvar)
{
    size_t v = 0;
    int rc;
    for (size_t f = 0; f < a->nfiles; f++, v++) {
        ac_compare_variant *x = &s->variants[v];
        x->id = a->nfiles == 2 ? s->in.files[f].file : "baseline";
        x->kind = a->nfiles == 2 ? "file" : "baseline";
        x->label = model_label(s->in.models[f]);
        x->file = s->in.files[f].file;
        x->model = s->in.models[f];
        if (analyse_variant(s, v, aopt) != 0)
            return AC_EXIT_USAGE;
    }
    rc = a->nfiles == 1 ? mitigation_variants(s, &v, a->only, a->nonly, aopt) : 0;
    *nvar = v;
    return rc;
}

/* The run's header, the searches (--search) and the outputs; returns the exit status. */
static int compare_emit(compare_state *s, const compare_args *a, const ac_analysis_options *aopt,
                        size_t nvar)
{
    ac_compare_run run;
    int status = AC_EXIT_PASS;
    memset(&run, 0, sizeof run);
    for (size_t f = 0; f < a->nfiles; f++) {
        run.files[f] = s->in.files[f].file;
        run.sha256[f] = s->in.files[f].sha256;
    }
    run.nfiles = a->nfiles;
    run.variants = s->variants;
    run.nvariants = nvar;
    run.seed = aopt->sim.seed;
    run.has_seed = a->ro.has_seed;
    if (!a->search && has_resilience(&s->in, a->nfiles))
        run.note =
            "the <resilience> requirements are INCONCLUSIVE in every variant: " SEARCH_SKIPPED;
    for (size_t k = 0; k < nvar; k++)
        if (s->variants[k].analysis == NULL)
            status = AC_EXIT_INCONCLUSIVE;
    if (a->search && a->nfiles == 1 &&
        add_search(s, nvar, s->in.models[0], s->in.files[0].file) != 0)
        status = AC_EXIT_INCONCLUSIVE;
    if (write_output(&run, a->oo.format == AC_FORMAT_JSON, a->oo.out) != 0)
        status = AC_EXIT_USAGE;
    if (a->ro.report != NULL && write_pdf(&run, &a->ro) != 0)
        status = AC_EXIT_USAGE;
    return status;
}

int ac_cli_compare(int argc, char **argv)
{
    compare_args a;
    ac_analysis_options aopt;
    compare_state s;
    size_t nvar = 0;
    int rc, status;

    memset(&s, 0, sizeof s);
    status = parse_args(argc, argv, &a);
    if (status >= 0)
        goto cleanup;
    if (ac_cli_input_load(&s.in, argv + optind, a.nfiles, AC_SEV_ERROR) != 0) {
        status = AC_EXIT_USAGE;
        goto cleanup;
    }
    status = inputs_check(&s.in, a.nfiles, a.only, a.nonly);
    if (status != 0)
        goto cleanup;
    nvar = a.nfiles == 2 ? 2 : 1 + (a.nonly > 0 ? a.nonly : s.in.models[0]->nmitigations);
    if (state_alloc(&s, nvar) != 0) {
        status = ac_cli_fail("out of memory");
        goto cleanup;
    }
    compare_options(&s, &a, &aopt);
    rc = compare_variants(&s, &a, &aopt, &nvar);
    status = rc != 0 ? rc : compare_emit(&s, &a, &aopt, nvar);
cleanup:
    state_free(&s);
    free(a.only);
    return status;
}
