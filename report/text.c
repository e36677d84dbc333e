/*
 * gcc-style text diagnostics.
 */
#include "archcheck/report.h"

#include <math.h>
#include <string.h>

#include "report/internal.h"

void ac_report_checks_count(const ac_analysis *a, size_t *pass, size_t *fail, size_t *inc)
{
    for (size_t k = 0; a != NULL && k < a->nchecks; k++) {
        if (a->checks[k].status == AC_CHECK_PASS)
            (*pass)++;
        else if (a->checks[k].status == AC_CHECK_FAIL)
            (*fail)++;
        else
            (*inc)++;
    }
}

static const char *sev_color(ac_severity s)
{
    switch (s) {
    case AC_SEV_ERROR: return "\033[1;31m";
    case AC_SEV_WARNING: return "\033[1;35m";
    case AC_SEV_NOTE: return "\033[1;36m";
    }
    return "";
}

static void write_diag(FILE *fp, const ac_diag *d, int color)
{
    const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
    fprintf(fp, "%s%s", bold, d->file);
    if (d->line > 0) {
        fprintf(fp, ":%u", d->line);
        if (d->column > 0)
            fprintf(fp, ":%u", d->column);
    }
    fprintf(fp, ":%s %s%s:%s %s [%s]\n", reset, color ? sev_color(d->severity) : "",
            ac_severity_name(d->severity), reset, d->message, d->rule);
    if (d->detail != NULL) {
        const char *p = d->detail;
        while (*p) {
            const char *nl = strchr(p, '\n');
            size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
            fprintf(fp, "    %.*s\n", (int)n, p);
            p += n;
            if (*p == '\n')
                p++;
        }
    }
}

/* One check as a line of the list: status (and rule), name, value against limit with the
 * stated error, the simulation's estimate when simulated, the line of the file. */
static void write_check(FILE *fp, const ac_check *c)
{
    char status[32], v[48], l[48], e[32] = "";
    snprintf(status, sizeof status, "%s%s%s", ac_report_check_status_label(c->status),
             c->status != AC_CHECK_PASS && c->rule[0] != '\0' ? " " : "",
             c->status != AC_CHECK_PASS ? c->rule : "");
    fprintf(fp, "    %-19s %s", status, c->name);
    if (c->has_value) {
        ac_report_compare_value_format(v, sizeof v, c->value, c->unit, 0);
        ac_report_compare_value_format(l, sizeof l, c->limit, c->unit, 0);
        if (c->rel_error > 0.0 && isfinite(c->rel_error))
            snprintf(e, sizeof e, " (stated error %.3g%%)", 100.0 * c->rel_error);
        fprintf(fp, ": %s%s, limit %s %s", v, e, c->upper ? "<=" : ">=", l);
    }
    if (c->has_sim) {
        ac_report_compare_value_format(v, sizeof v, c->sim_value, c->unit, 0);
        ac_report_compare_value_format(l, sizeof l, c->sim_ci95, c->unit, 0);
        fprintf(fp, "; simulated %s +- %s%s", v, l,
                c->settled_by_simulation ? " (settled the check)" : "");
        if (c->sim_level > 0.0 && c->sim_level != 0.95) { /* the sequential rule's interval */
            ac_report_compare_value_format(l, sizeof l, c->sim_halfwidth, c->unit, 0);
            fprintf(fp, " (judged at %.3g%%: +- %s)", 100.0 * c->sim_level, l);
        }
    }
    if (c->suppressed)
        fputs(" (suppressed)", fp);
    if (c->loc.line > 0)
        fprintf(fp, " [line %u]", c->loc.line);
    fputc('\n', fp);
}

/* --verbose: every check of every analysed file, as the JSON and the PDF list them. */
static void write_check_list(FILE *fp, const ac_report_run *run)
{
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_analysis *a = run->files[f].analysis;
        if (a == NULL)
            continue;
        fprintf(fp, "%s: %zu check%s\n", run->files[f].file, a->nchecks,
                a->nchecks == 1 ? "" : "s");
        for (size_t k = 0; k < a->nchecks; k++)
            write_check(fp, &a->checks[k]);
    }
}

int ac_report_text(FILE *fp, const ac_report_run *run)
{
    size_t errors = 0, warnings = 0, notes = 0, suppressed = 0, invalid = 0, failed = 0, inc = 0;
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        for (size_t i = 0; i < rf->diags->count; i++) {
            const ac_diag *d = &rf->diags->items[i];
            if (d->suppressed) {
                suppressed++;
                continue;
            }
            write_diag(fp, d, run->color);
            if (d->severity == AC_SEV_ERROR)
                errors++;
            else if (d->severity == AC_SEV_WARNING)
                warnings++;
            else
                notes++;
        }
        if (rf->verdict == AC_VERDICT_INVALID)
            invalid++;
        else if (rf->verdict == AC_VERDICT_FAIL)
            failed++;
        else if (rf->verdict == AC_VERDICT_INCONCLUSIVE)
            inc++;
    }
    if (run->verbose)
        write_check_list(fp, run);
    fprintf(fp, "%zu file%s: %zu error%s, %zu warning%s, %zu note%s", run->nfiles,
            run->nfiles == 1 ? "" : "s", errors, errors == 1 ? "" : "s", warnings,
            warnings == 1 ? "" : "s", notes, notes == 1 ? "" : "s");
    if (suppressed > 0)
        fprintf(fp, " (%zu suppressed)", suppressed);
    {
        size_t pass = 0, fail = 0, undecided = 0, any = 0;
        for (size_t f = 0; f < run->nfiles; f++) {
            any |= run->files[f].analysis != NULL;
            ac_report_checks_count(run->files[f].analysis, &pass, &fail, &undecided);
        }
        if (any)
            fprintf(fp, "; checks: %zu pass, %zu fail, %zu inconclusive", pass, fail, undecided);
    }
    if (run->nfiles == 1)
        fprintf(fp, "; verdict: %s",
                run->files[0].verdict == AC_VERDICT_INVALID
                    ? "invalid input"
                    : ac_verdict_name(run->files[0].verdict));
    else
        fprintf(fp, "; %zu invalid, %zu fail, %zu inconclusive, %zu pass", invalid, failed, inc,
                run->nfiles - invalid - failed - inc);
    /* what the exit status says when --fail-on never keeps it 0 for a fail or inconclusive */
    if (run->fail_never && run->has_exit_status && invalid == 0 && failed + inc > 0)
        fprintf(fp, "; exit status %d (--fail-on never)", run->exit_status);
    fputc('\n', fp);
    for (size_t f = 0; f < run->nfiles; f++) /* `size`, `check --size` */
        if (run->files[f].sizing != NULL) {
            fputc('\n', fp);
            ac_report_sizing_text(fp, &run->files[f]);
        }
    return ferror(fp) ? AC_EIO : AC_OK;
}
