/*
 * Rule selection on the command line (--select, --exclude), the warning for a suppression
 * that matches nothing (AC033), and "did you mean" suggestions (Levenshtein distance).
 */
#include <stdlib.h>
#include <string.h>

#include "archcheck/rules.h"
#include "cli/cli.h"
#include "common/suggest.h"

#define SELECT_REASON  "not selected (--select)"
#define EXCLUDE_REASON "excluded (--exclude)"

size_t ac_cli_edit_distance(const char *a, const char *b)
{
    return ac_edit_distance(a, b);
}

const char *ac_cli_suggest(const char *word, const char *const *candidates, size_t n)
{
    return ac_suggest(word, candidates, n);
}

/* Is `id` a rule? Else print why (with the nearest rule id) and return 0. */
static int known_rule(const char *id, const char *option)
{
    size_t n = 0;
    const ac_rule *all = ac_rules_all(&n);
    const char *ids[256], *near;
    if (ac_rule_find(id) != NULL)
        return 1;
    for (size_t i = 0; i < n && i < 256; i++)
        ids[i] = all[i].id;
    near = ac_cli_suggest(id, ids, n < 256 ? n : 256);
    if (near != NULL)
        ac_cli_fail("%s: unknown rule '%s'; did you mean %s? (`archcheck rules` lists them)",
                    option, id, near);
    else
        ac_cli_fail("%s: unknown rule '%s' (`archcheck rules` lists them)", option, id);
    return 0;
}

int ac_cli_rule_filter_add(ac_cli_rule_filter *f, int select, const char *list)
{
    const char *p = list;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        char id[16];
        if (len == 0 || len >= sizeof id)
            return ac_cli_fail("%s takes rule ids separated by commas: got '%s'",
                               select ? "--select" : "--exclude", list);
        memcpy(id, p, len);
        id[len] = '\0';
        if (!known_rule(id, select ? "--select" : "--exclude"))
            return AC_EXIT_USAGE;
        if (!select && (strcmp(id, "AC900") == 0 ||
                        (strncmp(id, "AC0", 3) == 0 && ac_rule_find(id)->severity == AC_SEV_ERROR)))
            return ac_cli_fail("--exclude %s: %s", id,
                               strcmp(id, "AC900") == 0
                                   ? "an undecided check is never a pass, so AC900 cannot be "
                                     "excluded"
                                   : "input errors cannot be excluded (the file would be "
                                     "judged without being valid)");
        if (f->n == sizeof f->ids / sizeof f->ids[0])
            return ac_cli_fail("too many rules in --select and --exclude");
        memcpy(f->ids[f->n], id, len + 1);
        f->select[f->n] = select;
        f->n++;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Is the finding kept by the filter? Input errors and AC900 always are. */
static int kept(const ac_cli_rule_filter *f, const ac_diag *d, const char **why)
{
    int any_select = 0, selected = 0;
    if (strcmp(d->rule, "AC900") == 0 ||
        (strncmp(d->rule, "AC0", 3) == 0 && d->severity == AC_SEV_ERROR))
        return 1;
    for (size_t i = 0; i < f->n; i++) {
        if (f->select[i]) {
            any_select = 1;
            selected |= strcmp(f->ids[i], d->rule) == 0;
        } else if (strcmp(f->ids[i], d->rule) == 0) {
            *why = EXCLUDE_REASON;
            return 0;
        }
    }
    if (any_select && !selected) {
        *why = SELECT_REASON;
        return 0;
    }
    return 1;
}

int ac_cli_rule_filter_apply(const ac_cli_rule_filter *f, ac_diag_list *diags, ac_analysis *a)
{
    for (size_t i = 0; f->n > 0 && i < diags->count; i++) {
        ac_diag *d = &diags->items[i];
        const char *why = NULL;
        if (d->suppressed || kept(f, d, &why))
            continue;
        free(d->suppress_reason);
        d->suppress_reason = strdup(why);
        if (d->suppress_reason == NULL)
            return -1;
        d->suppressed = 1;
        for (size_t k = 0; a != NULL && k < a->nchecks; k++) /* as a <suppress> would */
            if (a->checks[k].status != AC_CHECK_PASS && strcmp(a->checks[k].rule, d->rule) == 0)
                a->checks[k].suppressed = 1;
    }
    return 0;
}

int ac_cli_unused_suppressions(const ac_model *m, const char *file, ac_diag_list *diags)
{
    size_t n = diags->count;
    for (size_t s = 0; m != NULL && s < m->nsuppressions; s++) {
        const ac_suppression *sp = &m->suppressions[s];
        const char *target = sp->target != AC_NONE ? m->nodes[sp->target].id : NULL;
        int used = 0;
        for (size_t i = 0; i < n && !used; i++) {
            const ac_diag *d = &diags->items[i];
            used = d->suppressed && d->suppress_reason != NULL && sp->reason != NULL &&
                   strcmp(d->suppress_reason, sp->reason) == 0 && strcmp(d->rule, sp->rule) == 0 &&
                   (target == NULL || (d->node != NULL && strcmp(d->node, target) == 0));
        }
        if (!used && ac_diag_add(diags, "AC033", file, sp->loc.line, sp->loc.column, target,
                                 "suppression of %s%s%s%s matches no finding", sp->rule,
                                 target != NULL ? " on '" : "", target != NULL ? target : "",
                                 target != NULL ? "'" : "") != 0)
            return -1;
    }
    if (diags->count > n)
        ac_diag_list_sort(diags);
    return 0;
}

int ac_cli_known_word(const char *word, const char *const *words, size_t n, const char **near)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(word, words[i]) == 0)
            return 1;
    *near = ac_cli_suggest(word, words, n);
    return 0;
}

int ac_cli_bad_option(char **argv, const struct option *opts, const char *shortopts,
                      const char *usage)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (strncmp(arg, "--", 2) == 0) {
        const char *names[128], *near;
        size_t n = 0, len = strcspn(arg + 2, "=");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), arg + 2);
        for (size_t i = 0; opts[i].name != NULL && n < 128; i++) {
            if (strcmp(opts[i].name, name) == 0) { /* known: its value is missing */
                fputs(usage, stderr);
                return ac_cli_fail("option '--%s' needs a value", name);
            }
            names[n++] = opts[i].name;
        }
        near = ac_cli_suggest(name, names, n);
        fputs(usage, stderr);
        if (near != NULL)
            return ac_cli_fail("unknown option '--%s'; did you mean '--%s'?", name, near);
        return ac_cli_fail("unknown option '--%s'", name);
    }
    fputs(usage, stderr);
    if (optopt != 0 && strchr(shortopts, optopt) != NULL)
        return ac_cli_fail("option '-%c' needs a value", optopt);
    return ac_cli_fail("unknown option '-%c'", optopt != 0 ? optopt : '?');
}
