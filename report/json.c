/*
 * JSON output (spec/output.md).
 */
#include "archcheck/report.h"

#include "common/jsonw.h"

static void write_findings(ac_jsonw *w, const ac_report_file *rf)
{
    ac_jsonw_key(w, "findings");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < rf->diags->count; i++) {
        const ac_diag *d = &rf->diags->items[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "rule");
        ac_jsonw_string(w, d->rule);
        ac_jsonw_key(w, "severity");
        ac_jsonw_string(w, ac_severity_name(d->severity));
        ac_jsonw_key(w, "message");
        ac_jsonw_string(w, d->message);
        if (d->detail != NULL) {
            ac_jsonw_key(w, "detail");
            ac_jsonw_string(w, d->detail);
        }
        ac_jsonw_key(w, "file");
        ac_jsonw_string(w, d->file);
        ac_jsonw_key(w, "line");
        ac_jsonw_uint(w, d->line);
        ac_jsonw_key(w, "column");
        ac_jsonw_uint(w, d->column);
        if (d->node != NULL) {
            ac_jsonw_key(w, "node");
            ac_jsonw_string(w, d->node);
        }
        if (d->suppressed) {
            ac_jsonw_key(w, "suppressed");
            ac_jsonw_bool(w, 1);
            ac_jsonw_key(w, "suppression_reason");
            ac_jsonw_string(w, d->suppress_reason);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
}

static void write_file(ac_jsonw *w, const ac_report_run *run, const ac_report_file *rf)
{
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "archcheck");
    ac_jsonw_string(w, AC_VERSION);
    ac_jsonw_key(w, "file");
    ac_jsonw_string(w, rf->file);
    ac_jsonw_key(w, "sha256");
    ac_jsonw_string(w, rf->sha256);
    if (run->has_seed) {
        ac_jsonw_key(w, "seed");
        ac_jsonw_uint(w, run->seed);
    }
    ac_jsonw_key(w, "verdict");
    ac_jsonw_string(w, ac_verdict_name(rf->verdict));
    write_findings(w, rf);
    ac_jsonw_object_end(w);
}

int ac_report_json(FILE *fp, const ac_report_run *run)
{
    ac_jsonw w;
    ac_jsonw_init(&w, fp);
    if (run->nfiles == 1) {
        write_file(&w, run, &run->files[0]);
    } else {
        ac_jsonw_array_begin(&w);
        for (size_t f = 0; f < run->nfiles; f++)
            write_file(&w, run, &run->files[f]);
        ac_jsonw_array_end(&w);
    }
    ac_jsonw_end(&w);
    return ferror(fp) ? AC_EIO : AC_OK;
}
