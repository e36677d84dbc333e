/*
 * `archcheck size` (include/archcheck/size.h) as text and as the "sizing" / "dispatch" keys of
 * the JSON (output.md: "sizing": [ { "id", "kind", "designed", "needed",
 * "needed_with_headroom", "binding" } ], with the range and status added).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/internal.h"

void ac_report_seconds_format(char *buf, size_t n, double s)
{
    if (isnan(s))
        snprintf(buf, n, "-");
    else if (isinf(s))
        snprintf(buf, n, "unbounded");
    else if (s < 1.0)
        snprintf(buf, n, "%.4g ms", s * 1e3);
    else
        snprintf(buf, n, "%.4g s", s);
}

/* "87", "87 (86..89, uncertain)", "unattainable", ... */
static void answer_format(char *buf, size_t n, const ac_size_answer *a)
{
    switch (a->status) {
    case AC_SIZE_OK: snprintf(buf, n, "%zu%s", a->needed, a->simulated ? " (sim)" : ""); return;
    case AC_SIZE_UNCERTAIN:
        if (a->needed_hi == AC_UNBOUNDED)
            snprintf(buf, n, "%zu (%zu..?)", a->needed, a->needed_lo);
        else
            snprintf(buf, n, "%zu (%zu..%zu?)", a->needed, a->needed_lo, a->needed_hi);
        return;
    default: snprintf(buf, n, "%s", ac_size_status_name(a->status)); return;
    }
}

static void binding_format(char *buf, size_t n, const ac_model *m, const ac_size_answer *a)
{
    if (a->binding[0] == '\0')
        snprintf(buf, n, "-");
    else if (a->binding_node != AC_NONE && a->binding_node < m->nnodes)
        snprintf(buf, n, "%s at '%s'", a->binding, m->nodes[a->binding_node].id);
    else if (strcmp(a->binding, "nothing") == 0 || strcmp(a->binding, "stability") == 0)
        snprintf(buf, n, "%s", a->binding);
    else
        snprintf(buf, n, "%s end to end", a->binding);
}

static void dispatch_text(FILE *fp, const ac_report_file *rf)
{
    const ac_model *m = rf->model;
    fprintf(fp, "\ndispatch comparison of pool '%s' (%zu servers as written)\n",
            m->nodes[rf->dispatch_node].id, m->nodes[rf->dispatch_node].u.pool.servers);
    fprintf(fp, "  %-22s %12s %12s %12s  %-16s %s\n", "dispatch", "mean", "p95", "p99",
            "approximation", "servers needed");
    for (size_t i = 0; i < rf->ndispatch; i++) {
        const ac_dispatch_row *r = &rf->dispatch[i];
        char mean[32], p95[32], p99[32], need[64];
        ac_report_seconds_format(mean, sizeof mean, r->mean);
        ac_report_seconds_format(p95, sizeof p95, r->p95);
        ac_report_seconds_format(p99, sizeof p99, r->p99);
        answer_format(need, sizeof need, &r->needed);
        fprintf(fp, "  %-22s %12s %12s %12s  %-16s %s%s%s\n", r->name, mean, p95, p99,
                r->approximation, need, r->note[0] ? "  " : "", r->note);
    }
}

int ac_report_sizing_text(FILE *fp, const ac_report_file *rf)
{
    const ac_sizing *z = rf->sizing;
    const ac_model *m = rf->model;
    if (z == NULL || m == NULL)
        return AC_OK;
    fprintf(fp,
            "%s: sizing at the workload as written and at %.4g times it (required "
            "headroom)\n",
            rf->file, z->headroom_factor);
    if (z->note[0] != '\0')
        fprintf(fp, "  %s\n", z->note);
    if (z->nnodes > 0)
        fprintf(fp, "  %-16s %-9s %-13s %9s %18s %18s  %s\n", "node", "kind", "count", "designed",
                "needed", "with headroom", "binding");
    for (size_t j = 0; j < z->nnodes; j++) {
        const ac_size_node *r = &z->nodes[j];
        const ac_size_answer *b =
            r->at_headroom.status == AC_SIZE_OK || r->at_headroom.status == AC_SIZE_UNCERTAIN
                ? &r->at_headroom
                : &r->at_load;
        char load[64], head[64], bind[160];
        answer_format(load, sizeof load, &r->at_load);
        answer_format(head, sizeof head, &r->at_headroom);
        binding_format(bind, sizeof bind, m, b);
        fprintf(fp, "  %-16s %-9s %-13s %9zu %18s %18s  %s\n", m->nodes[r->node].id, r->kind,
                r->what, r->designed, load, head, bind);
    }
    for (size_t j = 0; j < z->nnodes; j++) {
        const ac_size_node *r = &z->nodes[j];
        const char *as = r->at_headroom.assumes[0] ? r->at_headroom.assumes : r->at_load.assumes;
        if (as[0] != '\0')
            fprintf(fp,
                    "  note: '%s' is sized as if %s held: it is undecided by its stated "
                    "error at every count of this node\n",
                    m->nodes[r->node].id, as);
    }
    for (size_t j = 0; j < z->nnodes; j++)
        if (z->nodes[j].at_load.split || z->nodes[j].at_headroom.split) {
            fprintf(fp, "  note: an end-to-end limit is split between the nodes by exchanges "
                        "(the least sum of their counts), not greedily in the file's order\n");
            break;
        }
    if (z->nnodes > 0) {
        if (z->saved >= 0)
            fprintf(fp, "  total: %lld fewer than designed (with headroom)%s\n", z->saved,
                    z->complete ? "" : "; some counts are uncertain or not found (see above)");
        else
            fprintf(fp, "  total: %lld missing against the design (with headroom)%s\n", -z->saved,
                    z->complete ? "" : "; some counts are uncertain or not found (see above)");
        fprintf(fp, "  work: %zu solves, %zu simulated analyses\n", z->probes, z->simulations);
    }
    if (rf->dispatch != NULL)
        dispatch_text(fp, rf);
    return ferror(fp) ? AC_EIO : AC_OK;
}

static void answer_json(ac_jsonw *w, const char *key, const ac_size_answer *a)
{
    if (a->status != AC_SIZE_OK && a->status != AC_SIZE_UNCERTAIN)
        return; /* keys that do not apply are left out */
    ac_jsonw_key(w, key);
    ac_jsonw_uint(w, a->needed);
    if (a->status == AC_SIZE_UNCERTAIN) {
        char k[64];
        snprintf(k, sizeof k, "%s_range", key);
        ac_jsonw_key(w, k);
        ac_jsonw_array_begin(w);
        ac_jsonw_uint(w, a->needed_lo);
        if (a->needed_hi == AC_UNBOUNDED)
            ac_jsonw_null(w); /* no count is sure */
        else
            ac_jsonw_uint(w, a->needed_hi);
        ac_jsonw_array_end(w);
    }
}

static void sizing_row_json(ac_jsonw *w, const ac_model *m, const ac_size_node *r)
{
    const ac_size_answer *b = r->at_headroom.binding[0] != '\0' ? &r->at_headroom : &r->at_load;
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "id");
    ac_jsonw_string(w, m->nodes[r->node].id);
    ac_jsonw_key(w, "kind");
    ac_jsonw_string(w, r->kind);
    ac_jsonw_key(w, "count");
    ac_jsonw_string(w, r->what);
    ac_jsonw_key(w, "designed");
    ac_jsonw_uint(w, r->designed);
    answer_json(w, "needed", &r->at_load);
    answer_json(w, "needed_with_headroom", &r->at_headroom);
    ac_jsonw_key(w, "status");
    ac_jsonw_string(w, ac_size_status_name(r->at_load.status));
    ac_jsonw_key(w, "status_with_headroom");
    ac_jsonw_string(w, ac_size_status_name(r->at_headroom.status));
    ac_jsonw_key(w, "simulated");
    ac_jsonw_bool(w, r->at_load.simulated || r->at_headroom.simulated);
    if (r->at_load.split || r->at_headroom.split) {
        ac_jsonw_key(w, "split");
        ac_jsonw_bool(w, 1);
    }
    if (r->at_load.assumes[0] != '\0' || r->at_headroom.assumes[0] != '\0') {
        ac_jsonw_key(w, "assumes");
        ac_jsonw_string(w, r->at_headroom.assumes[0] ? r->at_headroom.assumes : r->at_load.assumes);
    }
    if (b->binding[0] != '\0') {
        ac_jsonw_key(w, "binding");
        ac_jsonw_string(w, b->binding);
        if (b->binding_node != AC_NONE && b->binding_node < m->nnodes) {
            ac_jsonw_key(w, "binding_node");
            ac_jsonw_string(w, m->nodes[b->binding_node].id);
        }
    }
    ac_jsonw_object_end(w);
}

static void dispatch_json(ac_jsonw *w, const ac_report_file *rf)
{
    ac_jsonw_key(w, "dispatch");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "pool");
    ac_jsonw_string(w, rf->model->nodes[rf->dispatch_node].id);
    ac_jsonw_key(w, "rows");
    ac_jsonw_array_begin(w);
    for (size_t i = 0; i < rf->ndispatch; i++) {
        const ac_dispatch_row *r = &rf->dispatch[i];
        ac_jsonw_object_begin(w);
        ac_jsonw_key(w, "dispatch");
        ac_jsonw_string(w, r->name);
        if (r->analysed) {
            ac_jsonw_key(w, "mean_response_time");
            ac_jsonw_double(w, r->mean);
            ac_jsonw_key(w, "p95_response_time");
            ac_jsonw_double(w, r->p95);
            ac_jsonw_key(w, "p99_response_time");
            ac_jsonw_double(w, r->p99);
            ac_jsonw_key(w, "expected_rel_error");
            ac_jsonw_double(w, r->rel_error);
            ac_jsonw_key(w, "approximation");
            ac_jsonw_string(w, r->approximation);
        }
        answer_json(w, "needed", &r->needed);
        ac_jsonw_key(w, "status");
        ac_jsonw_string(w, ac_size_status_name(r->needed.status));
        if (r->note[0] != '\0') {
            ac_jsonw_key(w, "note");
            ac_jsonw_string(w, r->note);
        }
        ac_jsonw_object_end(w);
    }
    ac_jsonw_array_end(w);
    ac_jsonw_object_end(w);
}

void ac_report_sizing_json(ac_jsonw *w, const ac_report_file *rf)
{
    const ac_sizing *z = rf->sizing;
    ac_jsonw_key(w, "sizing");
    ac_jsonw_array_begin(w);
    for (size_t j = 0; j < z->nnodes; j++)
        sizing_row_json(w, rf->model, &z->nodes[j]);
    ac_jsonw_array_end(w);
    ac_jsonw_key(w, "sizing_summary");
    ac_jsonw_object_begin(w);
    ac_jsonw_key(w, "headroom_factor");
    ac_jsonw_double(w, z->headroom_factor);
    ac_jsonw_key(w, "saved");
    ac_jsonw_int(w, z->saved);
    ac_jsonw_key(w, "complete");
    ac_jsonw_bool(w, z->complete);
    ac_jsonw_key(w, "solves");
    ac_jsonw_uint(w, z->probes);
    ac_jsonw_key(w, "simulations");
    ac_jsonw_uint(w, z->simulations);
    if (z->note[0] != '\0') {
        ac_jsonw_key(w, "note");
        ac_jsonw_string(w, z->note);
    }
    ac_jsonw_object_end(w);
    if (rf->dispatch != NULL)
        dispatch_json(w, rf);
}
