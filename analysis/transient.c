/*
 * The transient in the analysis (internal.h): whether ac_analysis_run integrates it
 * (ac_analysis_options.transient), and at the analysis' workload factor. The transient
 * itself is a solver (solver/transient*.c, include/archcheck/transient.h).
 */
#include <stdio.h>

#include "analysis/internal.h"
#include "archcheck/transient.h"

int ac_an_transient_solve(const ac_model *m, const ac_analysis_options *opt, ac_analysis *a,
                          ac_error *err)
{
    ac_transient_options topt = opt->transient_opt;
    ac_error e = {0};
    int rc;
    ac_transient_free(a->transient);
    a->transient = NULL;
    a->transient_note[0] = '\0';
    if (opt->transient == AC_TRANSIENT_NEVER) {
        snprintf(a->transient_note, sizeof a->transient_note, "the transient was not requested");
        return AC_OK;
    }
    if (opt->transient == AC_TRANSIENT_AUTO && m->nprofiles == 0) {
        snprintf(a->transient_note, sizeof a->transient_note, "the model has no <profile>");
        return AC_OK;
    }
    if (opt->transient == AC_TRANSIENT_AUTO) {
        /* integrate only for a requirement that reads the trajectories: scaling, or recovery
           from a burst that some profile has */
        int need = 0, burst = 0;
        double horizon = ac_transient_horizon(m, &topt);
        for (size_t q = 0; q < m->nprofiles && !burst; q++) {
            double tp, te;
            /* a burst that ends at the horizon leaves nothing to recover in */
            burst = ac_transient_profile_burst(&m->profiles[q], &tp, &te) && te < horizon;
        }
        for (size_t q = 0; q < m->nrequirements; q++)
            need |= m->requirements[q].kind == AC_REQ_SCALING ||
                    (m->requirements[q].kind == AC_REQ_RECOVERY && burst);
        if (!need) {
            snprintf(a->transient_note, sizeof a->transient_note, "%s",
                     burst ? "no requirement reads the transient (recovery, scaling)"
                           : "no profile has a burst above its base rate (its first point's) "
                             "that returns to the base rate before the horizon");
            return AC_OK;
        }
    }
    topt.scale *= a->scale;
    rc = ac_transient_run(m, &topt, &a->transient, &e);
    if (rc == AC_ENOMEM)
        return ac_error_set(err, rc, "%s", e.message);
    if (rc != AC_OK)
        snprintf(a->transient_note, sizeof a->transient_note,
                 "the transient could not be computed: %.200s", e.message);
    return AC_OK;
}
