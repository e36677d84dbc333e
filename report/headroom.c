/*
 * The headroom factor in words, one sentence shared by the text of `solve` and the PDF.
 *
 * The factor alpha is the largest by which every source can be scaled with stability and
 * every latency, utilisation and loss requirement still met (analysis/headroom.c). Above 1
 * the workload can grow; below 1 it must shrink: something already fails today, and the
 * sentence says what, where, and to what share of today's rates the workload must come down.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/internal.h"

/* What fails first as the workload grows past the factor: "stability fails at 'render'",
 * "the utilization requirement fails at 'render'", "the latency p95 requirement fails end to
 * end". */
static void binding_text(char *buf, size_t n, const ac_model *m, const ac_analysis *a)
{
    const char *what = a->headroom_binding[0] != '\0' ? a->headroom_binding : "stability";
    int stability = strcmp(what, "stability") == 0;
    char where[160];
    if (a->headroom_node != AC_NONE && a->headroom_node < m->nnodes)
        snprintf(where, sizeof where, " at '%s'", m->nodes[a->headroom_node].id);
    else
        snprintf(where, sizeof where, "%s", stability ? "" : " end to end");
    if (stability)
        snprintf(buf, n, "stability fails%s", where);
    else
        snprintf(buf, n, "the %s requirement fails%s", what, where);
}

void ac_report_headroom_sentence(char *buf, size_t n, const ac_model *m, const ac_analysis *a)
{
    char what[256];
    double f = a->headroom;
    if (isinf(f)) {
        snprintf(buf, n,
                 "Nothing bounds the workload's growth: no requirement that tightens with "
                 "load binds and no node overloads (none can, or none did up to 2^20 "
                 "times the current load).");
        return;
    }
    binding_text(what, sizeof what, m, a);
    if (!(f > 1e-9))
        snprintf(buf, n, "No headroom: %s at any workload, however small.", what);
    else if (f < 1.0)
        snprintf(buf, n,
                 "No headroom: %s already at the current workload; every source must shrink to "
                 "%.4g%% of its rate (a factor of %.4g) for stability and every latency, "
                 "utilisation and loss requirement to hold.",
                 what, 100.0 * f, f);
    else
        snprintf(buf, n,
                 "The workload can grow by a factor of %.4g (every source to %.4g%% of its rate) "
                 "with stability and every latency, utilisation and loss requirement still met; "
                 "beyond it %s.",
                 f, 100.0 * f, what);
}
