/*
 * Shared helpers of the report module (internal to report/).
 */
#ifndef AC_REPORT_INTERNAL_H
#define AC_REPORT_INTERNAL_H

#include "archcheck/sim.h"
#include "common/jsonw.h"

/* The simulated KPIs of one node, each with its _ci95 sibling. */
void ac_report_sim_node_json(ac_jsonw *w, const ac_sim_node_result *r);

#endif
