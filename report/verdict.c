/*
 * Verdicts from findings.
 */
#include "archcheck/report.h"

#include <string.h>

const char *ac_verdict_name(ac_verdict v)
{
    switch (v) {
    case AC_VERDICT_PASS: return "pass";
    case AC_VERDICT_FAIL: return "fail";
    case AC_VERDICT_INCONCLUSIVE: return "inconclusive";
    case AC_VERDICT_INVALID: return "invalid";
    }
    return "invalid";
}

ac_verdict ac_report_verdict(const ac_diag_list *diags, ac_severity fail_on)
{
    int fail = 0, inconclusive = 0;
    for (size_t i = 0; i < diags->count; i++) {
        const ac_diag *d = &diags->items[i];
        if (d->suppressed)
            continue;
        if (d->severity == AC_SEV_ERROR && strncmp(d->rule, "AC0", 3) == 0)
            return AC_VERDICT_INVALID;
        if (strcmp(d->rule, "AC900") == 0)
            inconclusive = 1;
        else if (d->severity >= fail_on)
            fail = 1;
    }
    if (fail)
        return AC_VERDICT_FAIL;
    return inconclusive ? AC_VERDICT_INCONCLUSIVE : AC_VERDICT_PASS;
}

ac_verdict ac_report_run_verdict(const ac_report_run *run)
{
    static const int rank[] = {[AC_VERDICT_PASS] = 0,
                               [AC_VERDICT_INCONCLUSIVE] = 1,
                               [AC_VERDICT_FAIL] = 2,
                               [AC_VERDICT_INVALID] = 3};
    ac_verdict v = AC_VERDICT_PASS;
    for (size_t f = 0; f < run->nfiles; f++)
        if (rank[run->files[f].verdict] > rank[v])
            v = run->files[f].verdict;
    return v;
}
