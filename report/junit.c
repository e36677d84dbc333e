/*
 * JUnit XML (doc/archcheck.1): one <testsuite> per file, one <testcase> per requirement
 * and stability check; a failing check is a <failure> with its finding's message; an
 * INCONCLUSIVE check or a suppressed failure is <skipped> with the reason. A file that is
 * not analysed (invalid input, lint) has one "validation" test case that fails with every
 * input error. Findings that belong to no check (notes) go to <system-out>.
 */
#include "archcheck/report.h"

#include <string.h>

static void xml_escape(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
                fputc(' ', fp);
            else
                fputc(*s, fp);
        }
    }
}

/* The finding of a check that did not pass: same rule, same element, same node. */
static const ac_diag *check_finding(const ac_report_file *rf, const ac_check *ck)
{
    const ac_model *m = rf->model;
    const char *node = ck->node != AC_NONE && m != NULL ? m->nodes[ck->node].id : NULL;
    const ac_diag *any = NULL;
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *d = &rf->diags->items[i];
        if (strcmp(d->rule, ck->rule) != 0 || d->line != ck->loc.line)
            continue;
        if ((node == NULL && d->node == NULL) ||
            (node != NULL && d->node != NULL && strcmp(node, d->node) == 0))
            return d;
        any = d;
    }
    return any;
}

static void write_location(FILE *fp, const ac_diag *d)
{
    xml_escape(fp, d->file);
    fprintf(fp, ":%u:%u: ", d->line, d->column);
}

/* Does a check of the analysis account for this finding? */
static int belongs_to_check(const ac_report_file *rf, const ac_diag *d)
{
    const ac_analysis *a = rf->analysis;
    for (size_t k = 0; a != NULL && k < a->nchecks; k++)
        if (a->checks[k].status != AC_CHECK_PASS && check_finding(rf, &a->checks[k]) == d)
            return 1;
    return 0;
}

static void write_checks(FILE *fp, const ac_report_file *rf)
{
    const ac_analysis *a = rf->analysis;
    for (size_t k = 0; k < a->nchecks; k++) {
        const ac_check *ck = &a->checks[k];
        const ac_diag *d = ck->status != AC_CHECK_PASS ? check_finding(rf, ck) : NULL;
        fputs("    <testcase classname=\"", fp);
        xml_escape(fp, rf->file);
        fputs("\" name=\"", fp);
        xml_escape(fp, ck->name);
        {
            /* CI tools key test cases by name: a repeated name (two utilisation limits on
               one node) gets its occurrence, " (2)", " (3)", ... */
            size_t same = 0;
            for (size_t j = 0; j < k; j++)
                same += strcmp(a->checks[j].name, ck->name) == 0;
            if (same > 0)
                fprintf(fp, " (%zu)", same + 1);
        }
        fputs("\">", fp);
        if (ck->status == AC_CHECK_FAIL && !ck->suppressed) {
            fputs("<failure message=\"", fp);
            xml_escape(fp, d != NULL ? d->message : ck->name);
            fprintf(fp, "\" type=\"%s\">", ck->rule);
            if (d != NULL) {
                write_location(fp, d);
                xml_escape(fp, d->message);
                if (d->detail != NULL) {
                    fputc('\n', fp);
                    xml_escape(fp, d->detail);
                }
            }
            fprintf(fp, " [%s]</failure>", ck->rule);
        } else if (ck->status != AC_CHECK_PASS) {
            fputs("<skipped message=\"", fp);
            if (ck->suppressed)
                fputs("suppressed: ", fp);
            else
                fputs("inconclusive: ", fp);
            xml_escape(fp, d != NULL
                               ? (ck->suppressed && d->suppress_reason != NULL ? d->suppress_reason
                                                                               : d->message)
                               : ck->name);
            fputs("\"/>", fp);
        }
        fputs("</testcase>\n", fp);
    }
}

int ac_report_junit(FILE *fp, const ac_report_run *run)
{
    size_t total_tests = 0, total_failures = 0;
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        if (rf->analysis != NULL) {
            total_tests += rf->analysis->nchecks;
            for (size_t k = 0; k < rf->analysis->nchecks; k++)
                if (rf->analysis->checks[k].status == AC_CHECK_FAIL &&
                    !rf->analysis->checks[k].suppressed)
                    total_failures++;
        } else {
            total_tests++;
            if (rf->verdict != AC_VERDICT_PASS)
                total_failures++;
        }
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp, "<testsuites name=\"archcheck\" tests=\"%zu\" failures=\"%zu\">\n", total_tests,
            total_failures);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        size_t failures = 0, skipped = 0, tests;
        fputs("  <testsuite name=\"", fp);
        xml_escape(fp, rf->file);
        tests = rf->analysis != NULL ? rf->analysis->nchecks : 1;
        if (rf->analysis != NULL) {
            for (size_t k = 0; k < rf->analysis->nchecks; k++) {
                const ac_check *ck = &rf->analysis->checks[k];
                if (ck->status == AC_CHECK_FAIL && !ck->suppressed)
                    failures++;
                else if (ck->status != AC_CHECK_PASS)
                    skipped++;
            }
        } else {
            failures = rf->verdict != AC_VERDICT_PASS ? 1 : 0;
        }
        fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", tests, failures,
                skipped);
        if (rf->analysis != NULL) {
            write_checks(fp, rf);
        } else {
            fputs("    <testcase classname=\"", fp);
            xml_escape(fp, rf->file);
            fputs("\" name=\"validation\">", fp);
            if (rf->verdict != AC_VERDICT_PASS) {
                fputs("<failure message=\"the input is invalid\" type=\"input\">", fp);
                for (size_t i = 0; i < rf->diags->count; i++) {
                    const ac_diag *d = &rf->diags->items[i];
                    if (d->suppressed || d->severity < run->fail_on)
                        continue;
                    write_location(fp, d);
                    xml_escape(fp, d->message);
                    fprintf(fp, " [%s]\n", d->rule);
                }
                fputs("</failure>", fp);
            }
            fputs("</testcase>\n", fp);
        }
        /* findings that belong to no check (notes on the analysis, warnings) */
        {
            int open = 0;
            for (size_t i = 0; i < rf->diags->count; i++) {
                const ac_diag *d = &rf->diags->items[i];
                if (rf->analysis == NULL || belongs_to_check(rf, d))
                    continue;
                if (!open) {
                    fputs("    <system-out>", fp);
                    open = 1;
                }
                write_location(fp, d);
                fprintf(fp, "%s: ", ac_severity_name(d->severity));
                xml_escape(fp, d->message);
                fprintf(fp, " [%s]\n", d->rule);
            }
            if (open)
                fputs("</system-out>\n", fp);
        }
        fputs("  </testsuite>\n", fp);
    }
    fputs("</testsuites>\n", fp);
    return ferror(fp) ? AC_EIO : AC_OK;
}
