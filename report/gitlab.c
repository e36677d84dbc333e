/*
 * GitLab Code Quality output (the "codequality" report artifact): a JSON array of issues.
 */
#include "archcheck/report.h"

#include <stdlib.h>

#include "common/jsonw.h"

static const char *gitlab_severity(ac_severity s)
{
    switch (s) {
    case AC_SEV_ERROR: return "major";
    case AC_SEV_WARNING: return "minor";
    case AC_SEV_NOTE: return "info";
    }
    return "major";
}

int ac_report_gitlab(FILE *fp, const ac_report_run *run)
{
    ac_jsonw w;
    int rc = AC_OK;
    ac_jsonw_init(&w, fp);
    ac_jsonw_array_begin(&w);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_diag_list *dl = run->files[f].diags;
        for (size_t i = 0; i < dl->count; i++) {
            const ac_diag *d = &dl->items[i];
            char hex[33];
            char *path;
            if (d->suppressed)
                continue;
            path = ac_report_artifact_path(d->file, run->sarif_root);
            if (ac_report_finding_fingerprint(d, run->sarif_root, hex) != AC_OK || path == NULL)
                rc = AC_ENOMEM;
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "description");
            ac_jsonw_string(&w, d->message);
            ac_jsonw_key(&w, "check_name");
            ac_jsonw_string(&w, d->rule);
            ac_jsonw_key(&w, "fingerprint");
            ac_jsonw_string(&w, hex);
            ac_jsonw_key(&w, "severity");
            ac_jsonw_string(&w, gitlab_severity(d->severity));
            ac_jsonw_key(&w, "location");
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "path");
            ac_jsonw_string(&w, path != NULL ? path : d->file);
            ac_jsonw_key(&w, "lines");
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "begin");
            ac_jsonw_uint(&w, d->line > 0 ? d->line : 1);
            ac_jsonw_object_end(&w);
            ac_jsonw_object_end(&w);
            ac_jsonw_object_end(&w);
            free(path);
        }
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_end(&w);
    if (rc != AC_OK)
        return rc;
    return ferror(fp) ? AC_EIO : AC_OK;
}
