/*
 * SARIF 2.1.0 output: one run, the rules that fired (with descriptions and
 * help), one result per unsuppressed finding (suppressed ones carry a
 * `suppressions` entry with the reason, as SARIF provides).
 */
#include "archcheck/report.h"

#include <stdlib.h>
#include <string.h>

#include "archcheck/rules.h"
#include "common/jsonw.h"
#include "common/sha256.h"
#include "common/strbuf.h"

static const char *sarif_level(ac_severity s)
{
    switch (s) {
    case AC_SEV_ERROR: return "error";
    case AC_SEV_WARNING: return "warning";
    case AC_SEV_NOTE: return "note";
    }
    return "error";
}

/* Index of `id` in the catalogue; the rules that fired are listed in catalogue order. */
static size_t rule_index(const ac_rule *all, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].id, id) == 0)
            return i;
    return n;
}

/* artifactLocation: the URI relative to the root (uriBaseId ROOT), or absolute. */
static void write_artifact(ac_jsonw *w, const char *file, const char *root)
{
    int relative = 1;
    char *uri = ac_report_artifact_uri(file, root, &relative);
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "uri");
    ac_jsonw_string(w, uri != NULL ? uri : file);
    if (uri != NULL && relative) {
        ac_jsonw_key(w, "uriBaseId");
        ac_jsonw_string(w, "ROOT");
    }
    ac_jsonw_object_end(w);
    free(uri);
}

/* partialFingerprints: what code scanning tracks a finding by across commits: the file's
 * URI, the rule, the node and the message's fingerprint (numbers masked), never the line. */
static void write_fingerprint(ac_jsonw *w, const ac_diag *d, const char *root)
{
    char hex[33];
    ac_report_finding_fingerprint(d, root, hex);
    ac_jsonw_key(w, "partialFingerprints");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "archcheckFinding/v1");
    ac_jsonw_string(w, hex);
    ac_jsonw_object_end(w);
}

/* One reportingDescriptor of tool.driver.rules: the rule's id, name, descriptions, help and
 * default level. */
static void write_rule(ac_jsonw *w, const ac_rule *rule)
{
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "id");
    ac_jsonw_string(w, rule->id);
    ac_jsonw_key(w, "name");
    ac_jsonw_string(w, rule->name);
    ac_jsonw_key(w, "shortDescription");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "text");
    ac_jsonw_string(w, rule->summary);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "fullDescription");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "text");
    ac_jsonw_string(w, rule->help);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "help");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "text");
    ac_jsonw_string(w, rule->help);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "defaultConfiguration");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "level");
    ac_jsonw_string(w, sarif_level(rule->severity));
    ac_jsonw_object_end(w);
    ac_jsonw_object_end(w);
}

/* One result: the finding's rule (with its index in tool.driver.rules unless index is
 * (size_t)-1), level, message, location, fingerprint and, when suppressed, its suppression. */
static void write_result(ac_jsonw *w, const ac_diag *d, size_t index, const char *root)
{
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "ruleId");
    ac_jsonw_string(w, d->rule);
    if (index != (size_t)-1) {
        ac_jsonw_key(w, "ruleIndex");
        ac_jsonw_uint(w, index);
    }
    ac_jsonw_key(w, "level");
    ac_jsonw_string(w, sarif_level(d->severity));
    ac_jsonw_key(w, "message");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "text");
    ac_jsonw_string(w, d->message);
    ac_jsonw_object_end(w);
    ac_jsonw_key(w, "locations");
    ac_jsonw_array_begin(w);
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "physicalLocation");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "artifactLocation");
    write_artifact(w, d->file, root);
    ac_jsonw_key(w, "region");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "startLine");
    ac_jsonw_uint(w, d->line > 0 ? d->line : 1);
    if (d->column > 0) {
        ac_jsonw_key(w, "startColumn");
        ac_jsonw_uint(w, d->column);
    }
    ac_jsonw_object_end(w);
    ac_jsonw_object_end(w);
    ac_jsonw_object_end(w);
    ac_jsonw_array_end(w);
    write_fingerprint(w, d, root);
    if (d->suppressed) {
        int external =
            d->suppress_reason != NULL && strcmp(d->suppress_reason, AC_REPORT_IN_BASELINE) == 0;
        ac_jsonw_key(w, "suppressions");
        ac_jsonw_array_begin(w);
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "kind");
        ac_jsonw_string(w, external ? "external" : "inSource");
        ac_jsonw_key(w, "justification");
        ac_jsonw_string(w, d->suppress_reason != NULL ? d->suppress_reason : "");
        ac_jsonw_object_end(w);
        ac_jsonw_array_end(w);
    }
    ac_jsonw_object_end(w);
}

int ac_report_sarif(FILE *fp, const ac_report_run *run)
{
    ac_jsonw w;
    size_t nrules = 0, nfired = 0;
    const ac_rule *all = ac_rules_all(&nrules);
    size_t *slot = calloc(nrules + 1, sizeof *slot); /* catalogue index -> 1 + SARIF index */
    if (slot == NULL)
        return AC_ENOMEM;
    for (size_t f = 0; f < run->nfiles; f++)
        for (size_t i = 0; i < run->files[f].diags->count; i++) {
            size_t k = rule_index(all, nrules, run->files[f].diags->items[i].rule);
            slot[k] = 1;
        }
    for (size_t k = 0; k < nrules; k++)
        if (slot[k])
            slot[k] = ++nfired;

    ac_jsonw_init(&w, fp);
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "$schema");
    ac_jsonw_string(&w, "https://json.schemastore.org/sarif-2.1.0.json");
    ac_jsonw_key(&w, "version");
    ac_jsonw_string(&w, "2.1.0");
    ac_jsonw_key(&w, "runs");
    ac_jsonw_array_begin(&w);
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "tool");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "driver");
    ac_jsonw_object_begin(&w);
    ac_jsonw_key(&w, "name");
    ac_jsonw_string(&w, "archcheck");
    ac_jsonw_key(&w, "version");
    ac_jsonw_string(&w, AC_VERSION);
    ac_jsonw_key(&w, "semanticVersion");
    ac_jsonw_string(&w, AC_VERSION);
    ac_jsonw_key(&w, "informationUri");
    ac_jsonw_string(&w, "https://github.com/archcheck/archcheck");
    ac_jsonw_key(&w, "rules");
    ac_jsonw_array_begin(&w);
    for (size_t k = 0; k < nrules; k++) {
        if (!slot[k])
            continue;
        write_rule(&w, &all[k]);
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w); /* driver */
    ac_jsonw_object_end(&w); /* tool */
    {
        char *root = ac_report_root_uri(run->sarif_root);
        if (root != NULL) {
            ac_jsonw_key(&w, "originalUriBaseIds");
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "ROOT");
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "uri");
            ac_jsonw_string(&w, root);
            ac_jsonw_object_end(&w);
            ac_jsonw_object_end(&w);
            free(root);
        }
    }
    ac_jsonw_key(&w, "results");
    ac_jsonw_array_begin(&w);
    for (size_t f = 0; f < run->nfiles; f++) {
        const ac_diag_list *dl = run->files[f].diags;
        for (size_t i = 0; i < dl->count; i++) {
            const ac_diag *d = &dl->items[i];
            size_t k = rule_index(all, nrules, d->rule);
            write_result(&w, d, k < nrules ? slot[k] - 1 : (size_t)-1, run->sarif_root);
        }
    }
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w); /* run */
    ac_jsonw_array_end(&w);
    ac_jsonw_object_end(&w);
    ac_jsonw_end(&w);
    free(slot);
    return ferror(fp) ? AC_EIO : AC_OK;
}
