/*
 * The fault space of <faults> (doc/format.md): one gene in [0, 1] per range whose LOW is
 * below its HIGH, decoded to a fault plan of the transient (include/archcheck/search.h).
 *
 * Each <fault> contributes one plan fault per present value attribute (delay, fail-prob,
 * servers-down, capacity-loss, cold-start), all sharing the <fault>'s window
 * [at, at + for) (for absent: to the horizon, end = INFINITY; at absent: 0). A <fault> on
 * link l targets nnodes + l (the transient's and the simulator's numbering: delay and
 * capacity-loss, solver/transient_faults.c, sim/faults.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archcheck/search.h"

typedef struct slot {
    size_t fault;                 /* <fault> index */
    ac_transient_fault_attr attr; /* the plan fault's attribute */
    size_t target;
    size_t gene; /* SIZE_MAX: fixed at lo */
    double lo, hi;
    int integer;
} slot;

struct ac_search_space {
    const ac_model *model;
    double horizon;
    size_t ngenes, nfaults;
    ac_search_gene genes[AC_SEARCH_GENES_MAX];
    slot faults[AC_TRANSIENT_PLAN_MAX];
    size_t at_gene[AC_TRANSIENT_PLAN_MAX];  /* per plan fault: the gene of its at, or SIZE_MAX */
    size_t for_gene[AC_TRANSIENT_PLAN_MAX]; /* of its for, or SIZE_MAX */
};

static const struct {
    const char *name;
    ac_transient_fault_attr attr;
    size_t offset;
    int integer;
} value_attrs[] = {
    {"delay", AC_TRANSIENT_FAULT_DELAY, offsetof(ac_fault, delay), 0},
    {"fail-prob", AC_TRANSIENT_FAULT_FAIL_PROB, offsetof(ac_fault, fail_prob), 0},
    {"servers-down", AC_TRANSIENT_FAULT_SERVERS_DOWN, offsetof(ac_fault, servers_down), 1},
    {"capacity-loss", AC_TRANSIENT_FAULT_CAPACITY_LOSS, offsetof(ac_fault, capacity_loss), 0},
    {"cold-start", AC_TRANSIENT_FAULT_COLD_START, offsetof(ac_fault, cold_start), 0},
};

static const ac_range *range_at(const ac_fault *f, size_t offset)
{
    return (const ac_range *)(const void *)((const char *)f + offset);
}

/* Add a gene for [lo, hi] when lo < hi; its index, SIZE_MAX when fixed, or error. */
static int add_gene(ac_search_space *s, size_t fault, ac_search_gene_kind kind,
                    ac_transient_fault_attr attr, const char *node, const char *what, double lo,
                    double hi, int integer, size_t *out, ac_error *err)
{
    ac_search_gene *g;
    *out = SIZE_MAX;
    if (!(lo < hi))
        return 0;
    if (s->ngenes == AC_SEARCH_GENES_MAX)
        return ac_error_set(err, AC_EINVAL, "the fault space has more than %d genes",
                            AC_SEARCH_GENES_MAX);
    g = &s->genes[s->ngenes];
    g->fault = fault;
    g->kind = kind;
    g->attr = attr;
    g->lo = lo;
    g->hi = hi;
    g->integer = integer;
    snprintf(g->name, sizeof g->name, "%.60s.%s", node, what);
    *out = s->ngenes++;
    return 0;
}

/* The genes and plan faults of one <fault>. */
static int add_fault(ac_search_space *s, size_t i, ac_error *err)
{
    const ac_fault *f = &s->model->faults.items[i];
    size_t target = f->target_is_link ? s->model->nnodes + f->target : f->target;
    const char *node = ac_search_target_id(s->model, target);
    size_t at_gene = SIZE_MAX, for_gene = SIZE_MAX;
    size_t first = s->nfaults;
    int rc;
    for (size_t a = 0; a < sizeof value_attrs / sizeof value_attrs[0]; a++) {
        const ac_range *r = range_at(f, value_attrs[a].offset);
        slot *sl;
        if (!r->present)
            continue;
        if (s->nfaults == AC_TRANSIENT_PLAN_MAX)
            return ac_error_set_at(err, AC_EINVAL, f->loc,
                                   "the fault space has more than %d faults",
                                   AC_TRANSIENT_PLAN_MAX);
        sl = &s->faults[s->nfaults++];
        sl->fault = i;
        sl->attr = value_attrs[a].attr;
        sl->target = target;
        sl->lo = r->lo;
        sl->hi = r->hi;
        sl->integer = value_attrs[a].integer;
        rc = add_gene(s, i, AC_SEARCH_GENE_VALUE, sl->attr, node, value_attrs[a].name, r->lo, r->hi,
                      sl->integer, &sl->gene, err);
        if (rc != 0)
            return rc;
    }
    if (f->at.present && (rc = add_gene(s, i, AC_SEARCH_GENE_AT, AC_TRANSIENT_FAULT_DELAY, node,
                                        "at", f->at.lo, f->at.hi, 0, &at_gene, err)) != 0)
        return rc;
    if (f->duration.present &&
        (rc = add_gene(s, i, AC_SEARCH_GENE_FOR, AC_TRANSIENT_FAULT_DELAY, node, "for",
                       f->duration.lo, f->duration.hi, 0, &for_gene, err)) != 0)
        return rc;
    for (size_t k = first; k < s->nfaults; k++) {
        s->at_gene[k] = at_gene;
        s->for_gene[k] = for_gene;
    }
    return 0;
}

int ac_search_space_new(const ac_model *model, double horizon, ac_search_space **out, ac_error *err)
{
    ac_search_space *s;
    int rc = 0;
    *out = NULL;
    if (model == NULL || !model->faults.present)
        return ac_error_set(err, AC_EINVAL, "the model has no <faults> space");
    if (!(horizon > 0.0) || !isfinite(horizon))
        return ac_error_set(err, AC_EINVAL, "the search needs a positive transient horizon");
    s = calloc(1, sizeof *s);
    if (s == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory (fault space)");
    s->model = model;
    s->horizon = horizon;
    for (size_t i = 0; i < model->faults.count && rc == 0; i++)
        rc = add_fault(s, i, err);
    if (rc != 0) {
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const char *ac_search_target_id(const ac_model *model, size_t target)
{
    if (target < model->nnodes)
        return model->nodes[target].id;
    if (target - model->nnodes < model->nlinks)
        return model->links[target - model->nnodes].id != NULL
                   ? model->links[target - model->nnodes].id
                   : "?";
    return "?";
}

int ac_search_target_is_link(const ac_model *model, size_t target)
{
    return target >= model->nnodes && target - model->nnodes < model->nlinks;
}

void ac_search_space_free(ac_search_space *space)
{
    free(space);
}

size_t ac_search_space_ngenes(const ac_search_space *space)
{
    return space->ngenes;
}

const ac_search_gene *ac_search_space_gene(const ac_search_space *space, size_t i)
{
    return i < space->ngenes ? &space->genes[i] : NULL;
}

size_t ac_search_space_nfaults(const ac_search_space *space)
{
    return space->nfaults;
}

/* lo + g (hi - lo); counts: floor(lo + g (hi - lo + 1)) capped at hi. */
static double gene_value(const double *genes, size_t gene, double lo, double hi, int integer)
{
    double g;
    if (gene == SIZE_MAX)
        return lo;
    g = genes[gene];
    g = g < 0.0 ? 0.0 : (g > 1.0 ? 1.0 : g);
    if (!(g == g))
        g = 0.0;
    if (integer) {
        double v = floor(lo + g * (hi - lo + 1.0));
        return v > hi ? hi : v;
    }
    return lo + g * (hi - lo);
}

void ac_search_space_decode(const ac_search_space *space, const double *genes,
                            ac_transient_fault *faults)
{
    for (size_t k = 0; k < space->nfaults; k++) {
        const slot *sl = &space->faults[k];
        const ac_fault *f = &space->model->faults.items[sl->fault];
        double at =
            f->at.present ? gene_value(genes, space->at_gene[k], f->at.lo, f->at.hi, 0) : 0.0;
        faults[k].target = sl->target;
        faults[k].attr = sl->attr;
        faults[k].value = gene_value(genes, sl->gene, sl->lo, sl->hi, sl->integer);
        faults[k].start = at;
        faults[k].end = f->duration.present ? at + gene_value(genes, space->for_gene[k],
                                                              f->duration.lo, f->duration.hi, 0)
                                            : INFINITY;
    }
}
