/*
 * <suppress rule="..." target="..." reason="..."/>: silence a rule on one node
 * or everywhere. Suppressed findings stay in the list, marked, with the reason,
 * so that reports can show them.
 */
#include <string.h>

#include "analysis/internal.h"
#include "common/strbuf.h"

void ac_an_apply_suppressions(const ac_model *m, ac_diag_list *findings, size_t first)
{
    for (size_t i = first; i < findings->count; i++) {
        ac_diag *d = &findings->items[i];
        for (size_t s = 0; s < m->nsuppressions; s++) {
            const ac_suppression *sp = &m->suppressions[s];
            if (strcmp(sp->rule, d->rule) != 0)
                continue;
            if (sp->target != AC_NONE &&
                (d->node == NULL || strcmp(d->node, m->nodes[sp->target].id) != 0))
                continue;
            d->suppressed = 1;
            d->suppress_reason = ac_strdup(sp->reason != NULL ? sp->reason : "");
            break;
        }
    }
}
