/*
 * Helpers shared by the commands.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "archcheck/parser.h"
#include "cli/cli.h"
#include "common/atomic.h"

int ac_cli_fail(const char *fmt, ...)
{
    va_list ap;
    fputs("archcheck: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return AC_EXIT_USAGE;
}

int ac_cli_parse_format(const char *value, const char *const *allowed, ac_cli_format *out)
{
    static const char *const names[] = {"text", "json", "sarif", "junit", "gitlab"};
    for (size_t i = 0; allowed[i] != NULL; i++) {
        if (strcmp(value, allowed[i]) != 0)
            continue;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strcmp(value, names[k]) == 0) {
                *out = (ac_cli_format)k;
                return 0;
            }
    }
    fprintf(stderr, "archcheck: unknown format '%s' (allowed:", value);
    for (size_t i = 0; allowed[i] != NULL; i++)
        fprintf(stderr, " %s", allowed[i]);
    fputs(")\n", stderr);
    return -1;
}

int ac_cli_color(const char *mode, FILE *stream)
{
    if (strcmp(mode, "always") == 0)
        return 1;
    if (strcmp(mode, "never") == 0)
        return 0;
    { /* https://no-color.org: set and not empty, no colour unless --color always */
        const char *no = getenv("NO_COLOR");
        if (no != NULL && no[0] != '\0')
            return 0;
    }
    return isatty(fileno(stream));
}

int ac_cli_color_parse(const char *value, const char **mode)
{
    if (strcmp(value, "auto") != 0 && strcmp(value, "always") != 0 && strcmp(value, "never") != 0)
        return ac_cli_fail("--color takes auto, always or never");
    *mode = value;
    return 0;
}

void ac_cli_out_opts_init(ac_cli_out_opts *o, const char *const *formats)
{
    memset(o, 0, sizeof *o);
    o->formats = formats;
    o->format = AC_FORMAT_TEXT;
    o->color = "auto";
}

int ac_cli_out_opts_parse(ac_cli_out_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'f':
        if (ac_cli_parse_format(arg, o->formats, &o->format) != 0)
            return AC_EXIT_USAGE;
        return 1;
    case 'o': o->out = arg; return 1;
    case 'R': o->sarif_root = arg; return 1;
    case 'c': return ac_cli_color_parse(arg, &o->color) != 0 ? AC_EXIT_USAGE : 1;
    default: return 0;
    }
}

void ac_cli_linter_opts_init(ac_cli_linter_opts *o, const char *const *formats)
{
    memset(o, 0, sizeof *o);
    ac_cli_out_opts_init(&o->out, formats);
}

int ac_cli_linter_opts_parse(ac_cli_linter_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'A': o->arch_only = 1; return 1;
    case 'N': return 1; /* --no-config: read by ac_cli_config_args */
    case 'S':
    case 'X': return ac_cli_rule_filter_add(&o->filter, c == 'S', arg) != 0 ? AC_EXIT_USAGE : 1;
    default: return ac_cli_out_opts_parse(&o->out, c, arg);
    }
}

int ac_cli_ulong_parse(const char *s, unsigned long max, unsigned long *out)
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

void ac_cli_run_opts_init(ac_cli_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->validate = AC_VALIDATE_AUTO;
}

int ac_cli_run_opts_parse(ac_cli_run_opts *o, int c, const char *arg)
{
    switch (c) {
    case 's':
        if (ac_cli_ulong_parse(arg, 4294967295ul, &o->seed) != 0)
            return ac_cli_fail("--seed takes a whole number from 0 to 4294967295: got '%s'", arg);
        o->has_seed = 1;
        return 1;
    case 'v': o->validate = AC_VALIDATE_ALWAYS; return 1;
    case 'V': o->validate = AC_VALIDATE_NEVER; return 1;
    case 'r': o->report = arg; return 1;
    case 'T': o->timestamp = 1; return 1;
    default: return 0;
    }
}

void ac_cli_run_opts_apply(const ac_cli_run_opts *o, ac_analysis_options *aopt)
{
    ac_analysis_options_init(aopt);
    aopt->validate = o->validate;
    aopt->sim.seed = o->seed;
}

void ac_cli_pdf_options_init(ac_report_pdf_options *opt, const ac_cli_run_opts *o)
{
    ac_report_pdf_options_init(opt);
    opt->font_dir = getenv("ARCHCHECK_FONT_DIR");
    if (opt->font_dir != NULL && opt->font_dir[0] == '\0')
        opt->font_dir = NULL;
    if (o->timestamp) {
        const char *epoch = getenv("SOURCE_DATE_EPOCH");
        unsigned long v;
        opt->has_creation_date = 1;
        if (epoch != NULL && ac_cli_ulong_parse(epoch, 253402300799ul, &v) == 0)
            opt->creation_date = (long long)v;
        else
            opt->creation_date = (long long)time(NULL);
    }
}

static int write_format(FILE *fp, const ac_report_run *run, ac_cli_format format)
{
    switch (format) {
    case AC_FORMAT_TEXT: return ac_report_text(fp, run);
    case AC_FORMAT_JSON: return ac_report_json(fp, run);
    case AC_FORMAT_SARIF: return ac_report_sarif(fp, run);
    case AC_FORMAT_JUNIT: return ac_report_junit(fp, run);
    case AC_FORMAT_GITLAB: return ac_report_gitlab(fp, run);
    }
    return AC_EINVAL;
}

int ac_cli_emit(const char *path, FILE *stream, ac_cli_writer write, const void *ctx)
{
    ac_error err = {0};
    ac_atomic_file f;
    if (path == NULL || strcmp(path, "-") == 0) {
        if (write(stream, ctx) != AC_OK || fflush(stream) != 0) {
            if (stream == stdout && ferror(stdout))
                return AC_EXIT_USAGE; /* main() says what failed */
            return ac_cli_fail("cannot write the output: %s", strerror(errno));
        }
        return 0;
    }
    if (ac_atomic_open(&f, path, &err) != AC_OK)
        return ac_cli_fail("%s", err.message);
    if (write(f.fp, ctx) != AC_OK) {
        ac_atomic_abort(&f);
        return ac_cli_fail("cannot write '%s'", path);
    }
    if (ac_atomic_commit(&f, &err) != AC_OK)
        return ac_cli_fail("%s", err.message);
    return 0;
}

typedef struct run_ctx {
    const ac_report_run *run;
    ac_cli_format format;
} run_ctx;

static int write_run(FILE *fp, const void *ctx)
{
    const run_ctx *c = ctx;
    return write_format(fp, c->run, c->format);
}

int ac_cli_write(const ac_report_run *run, ac_cli_format format, const char *out_path, FILE *stream)
{
    const run_ctx c = {run, format};
    return ac_cli_emit(out_path, stream, write_run, &c);
}

int ac_cli_input_load(ac_cli_input *in, char **paths, size_t n, ac_severity fail_on)
{
    memset(in, 0, sizeof *in);
    in->files = calloc(n, sizeof *in->files);
    in->diags = calloc(n, sizeof *in->diags);
    in->models = calloc(n, sizeof *in->models);
    in->analyses = calloc(n, sizeof *in->analyses);
    in->n = n;
    if (in->files == NULL || in->diags == NULL || in->models == NULL || in->analyses == NULL)
        return ac_cli_fail("out of memory");
    for (size_t i = 0; i < n; i++) {
        ac_error err = {0};
        int rc = strcmp(paths[i], "-") == 0
                     ? ac_cli_parse_stdin(in->files[i].sha256, &in->models[i], &in->diags[i], &err)
                     : ac_parser_parse_file_digest(paths[i], in->files[i].sha256, &in->models[i],
                                                   &in->diags[i], &err);
        if (rc != AC_OK && rc != AC_EINPUT)
            return ac_cli_fail("%s: %s", paths[i], err.message);
        in->files[i].file = strcmp(paths[i], "-") == 0 ? "<stdin>" : paths[i];
        in->files[i].diags = &in->diags[i];
        in->files[i].model = in->models[i];
        in->files[i].verdict =
            rc == AC_EINPUT ? AC_VERDICT_INVALID : ac_report_verdict(&in->diags[i], fail_on);
    }
    return 0;
}

int ac_cli_input_load_args(ac_cli_input *in, int argc, char **argv, const char *command,
                           const char *usage, ac_severity fail_on, int arch_only)
{
    ac_cli_paths paths;
    memset(in, 0, sizeof *in);
    if (optind >= argc) {
        fputs(usage, stderr);
        return ac_cli_fail("%s: no input file", command);
    }
    if (ac_cli_paths_expand(argv + optind, (size_t)(argc - optind), arch_only, &paths) != 0)
        return AC_EXIT_USAGE;
    if (paths.n == 0 || paths.empty_dir) {
        int nothing = !paths.empty_dir; /* only files that are not architectures: skipped */
        ac_cli_paths_free(&paths);
        if (nothing)
            fprintf(stderr, "archcheck: %s: no architecture file to check\n", command);
        return nothing ? AC_CLI_NOTHING : AC_EXIT_USAGE;
    }
    if (ac_cli_input_load(in, paths.v, paths.n, fail_on) != 0) {
        in->paths = paths;
        ac_cli_input_free(in);
        return AC_EXIT_USAGE;
    }
    in->paths = paths;
    return 0;
}

int ac_cli_input_analyse(ac_cli_input *in, const ac_analysis_options *opt, ac_severity fail_on,
                         int has_seed)
{
    for (size_t i = 0; i < in->n; i++) {
        ac_error err = {0};
        ac_analysis_options o = *opt;
        int rc;
        if (in->models[i] == NULL)
            continue;
        if (!has_seed && in->models[i]->faults.has_seed)
            o.sim.seed = in->models[i]->faults.seed;
        size_t errors = ac_diag_list_count(&in->diags[i], AC_SEV_ERROR);
        if (o.sim.progress == ac_cli_progress_update) /* the bar names the file */
            ac_cli_progress_start(o.sim.progress_ctx, in->files[i].file);
        rc = ac_analysis_run(in->models[i], &o, &in->analyses[i], &in->diags[i], &err);
        if (rc == AC_EINPUT && ac_diag_list_count(&in->diags[i], AC_SEV_ERROR) > errors) {
            /* a located finding (AC032) says why the input cannot be analysed */
            ac_diag_list_sort(&in->diags[i]);
            in->files[i].verdict = AC_VERDICT_INVALID;
            continue;
        }
        if (rc != AC_OK || in->analyses[i] == NULL) /* no analysis: no verdict at all */
            return ac_cli_fail("%s: no verdict: %s", in->files[i].file,
                               err.code != 0 ? err.message : ac_status_str(rc));
        in->files[i].analysis = in->analyses[i];
        ac_diag_list_sort(&in->diags[i]);
        in->files[i].verdict = ac_report_verdict(&in->diags[i], fail_on);
    }
    return 0;
}

int ac_cli_input_load_one(ac_cli_input *in, char *path, int color)
{
    ac_report_run run;
    if (ac_cli_input_load(in, &path, 1, AC_SEV_ERROR) != 0) {
        ac_cli_input_free(in);
        return AC_EXIT_USAGE;
    }
    if (in->models[0] != NULL)
        return 0;
    memset(&run, 0, sizeof run);
    run.files = in->files;
    run.nfiles = 1;
    run.fail_on = AC_SEV_ERROR;
    run.color = color;
    ac_report_text(stderr, &run);
    ac_cli_input_free(in);
    return AC_EXIT_USAGE;
}

void ac_cli_input_free(ac_cli_input *in)
{
    for (size_t i = 0; i < in->n; i++) {
        if (in->diags != NULL)
            ac_diag_list_clear(&in->diags[i]);
        if (in->analyses != NULL)
            ac_analysis_free(in->analyses[i]);
        if (in->models != NULL)
            ac_model_free(in->models[i]);
    }
    free(in->files);
    free(in->diags);
    free(in->analyses);
    free(in->models);
    ac_cli_paths_free(&in->paths);
    memset(in, 0, sizeof *in);
}

int ac_cli_exit_status(const ac_report_run *run)
{
    int fail = 0, inconclusive = 0;
    for (size_t i = 0; i < run->nfiles; i++) {
        switch (run->files[i].verdict) {
        case AC_VERDICT_INVALID: return AC_EXIT_USAGE;
        case AC_VERDICT_FAIL: fail = 1; break;
        case AC_VERDICT_INCONCLUSIVE: inconclusive = 1; break;
        case AC_VERDICT_PASS: break;
        }
    }
    if (fail)
        return AC_EXIT_FAIL;
    return inconclusive ? AC_EXIT_INCONCLUSIVE : AC_EXIT_PASS;
}
