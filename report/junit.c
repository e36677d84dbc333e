/*
 * JUnit XML: one <testsuite> per file; one <testcase> per check. For input
 * errors the file's single "validation" case fails with every message.
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

static void write_location(FILE *fp, const ac_diag *d)
{
    xml_escape(fp, d->file);
    fprintf(fp, ":%u:%u: ", d->line, d->column);
}

int ac_report_junit(FILE *fp, const ac_report_run *run)
{
    size_t total_tests = 0, total_failures = 0;
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_diag_list *dl = run->files[f].diags;
        size_t failures = 0;
        for (size_t i = 0; i < dl->count; i++)
            if (!dl->items[i].suppressed && dl->items[i].severity >= run->fail_on)
                failures++;
        total_tests += 1 + dl->count;
        total_failures += failures;
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fprintf(fp, "<testsuites name=\"archcheck\" tests=\"%zu\" failures=\"%zu\">\n", total_tests,
            total_failures);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_report_file *rf = &run->files[f];
        const ac_diag_list *dl = rf->diags;
        size_t failures = 0, skipped = 0;
        for (size_t i = 0; i < dl->count; i++) {
            if (dl->items[i].suppressed)
                skipped++;
            else if (dl->items[i].severity >= run->fail_on)
                failures++;
        }
        fputs("  <testsuite name=\"", fp);
        xml_escape(fp, rf->file);
        fprintf(fp, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", 1 + dl->count,
                failures, skipped);
        fputs("    <testcase classname=\"", fp);
        xml_escape(fp, rf->file);
        fputs("\" name=\"verdict\">", fp);
        if (rf->verdict != AC_VERDICT_PASS) {
            fprintf(fp, "<failure message=\"verdict: %s\"/>", ac_verdict_name(rf->verdict));
        }
        fputs("</testcase>\n", fp);
        for (size_t i = 0; i < dl->count; i++) {
            const ac_diag *d = &dl->items[i];
            fputs("    <testcase classname=\"", fp);
            xml_escape(fp, rf->file);
            fprintf(fp, "\" name=\"%s", d->rule);
            if (d->node != NULL) {
                fputc(' ', fp);
                xml_escape(fp, d->node);
            }
            fprintf(fp, " line %u\">", d->line);
            if (d->suppressed) {
                fputs("<skipped message=\"suppressed: ", fp);
                xml_escape(fp, d->suppress_reason != NULL ? d->suppress_reason : "");
                fputs("\"/>", fp);
            } else if (d->severity >= run->fail_on) {
                fputs("<failure message=\"", fp);
                xml_escape(fp, d->message);
                fprintf(fp, "\" type=\"%s\">", ac_severity_name(d->severity));
                write_location(fp, d);
                xml_escape(fp, d->message);
                fprintf(fp, " [%s]</failure>", d->rule);
            } else {
                fputs("<system-out>", fp);
                write_location(fp, d);
                xml_escape(fp, d->message);
                fputs("</system-out>", fp);
            }
            fputs("</testcase>\n", fp);
        }
        fputs("  </testsuite>\n", fp);
    }
    fputs("</testsuites>\n", fp);
    return ferror(fp) ? AC_EIO : AC_OK;
}
