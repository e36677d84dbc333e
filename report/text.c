/*
 * gcc-style text diagnostics.
 */
#include "archcheck/report.h"

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
        fprintf(fp, "; verdict: %s\n",
                run->files[0].verdict == AC_VERDICT_INVALID ? "invalid input"
                                                            : ac_verdict_name(run->files[0].verdict));
    else
        fprintf(fp, "; %zu invalid, %zu fail, %zu inconclusive, %zu pass\n", invalid, failed, inc,
                run->nfiles - invalid - failed - inc);
    for (size_t f = 0; f < run->nfiles; f++) /* `size`, `check --size` */
        if (run->files[f].sizing != NULL) {
            fputc('\n', fp);
            ac_report_sizing_text(fp, &run->files[f]);
        }
    return ferror(fp) ? AC_EIO : AC_OK;
}
