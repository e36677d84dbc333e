/*
 * Requirements that need more than the steady state: headroom (evaluated from
 * the headroom search), and recovery, scaling and resilience, which need the
 * transient model and the worst-case search (not in this version: inconclusive).
 */
#include <stdio.h>
#include <string.h>

#include "analysis/internal.h"

void ac_req_headroom(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    ac_req_outcome o;
    memset(&o, 0, sizeof o);
    o.node = AC_NONE;
    o.limit = r->min;
    snprintf(o.what, sizeof o.what, "headroom");
    if (c->a->has_headroom) {
        o.value = c->a->headroom;
        o.node = c->a->headroom_node;
        o.evaluated = 1;
        o.pass = o.value >= o.limit;
        o.rel_error = c->a->headroom_rel_error;
    } else {
        snprintf(o.note, sizeof o.note, "the headroom could not be computed");
    }
    emit(c, r, &o);
}

void ac_req_deferred(ac_an_ctx *c, const ac_requirement *r, ac_req_emit emit)
{
    ac_req_outcome o;
    memset(&o, 0, sizeof o);
    o.node = r->target;
    snprintf(o.what, sizeof o.what, "%s", ac_req_kind_name(r->kind));
    snprintf(o.note, sizeof o.note,
             "%s requirements need the %s, which archcheck %s does not have yet",
             ac_req_kind_name(r->kind),
             r->kind == AC_REQ_RESILIENCE ? "worst-case fault search" : "transient model",
             AC_VERSION);
    emit(c, r, &o);
}
