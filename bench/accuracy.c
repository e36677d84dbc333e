/*
 * accuracy: archcheck's stated errors against the simulator on random models (the harness of
 * tests/accuracy.h), `make accuracy`.
 *
 *   build/bench/accuracy [--count N] [--seed S] [--family NAME] [--out DIR] [--events E]
 *                        [--budget B]
 *
 * Runs N models (default 1000; model i has seed S + i, S default 1, and the family of
 * acc_family_of(i), or NAME: `--family gateway --count 8` repeats test_accuracy's gateway
 * models), each analysed and simulated with a counted event budget (E events per
 * replication for the horizon, default 60000; at most B events per model, default 1.2e7),
 * and writes DIR (default build/accuracy) /accuracy.md and /accuracy.csv (the table per
 * approximation and per class), /misses.txt (every miss, skipped model and error) and
 * /models/acc-FAMILY-SEED.xml (every model with a miss, to rerun with `archcheck check
 * --validate`; a mitigation in it is the one the harness applied).
 * Exit 0 when no approximation and no class misses more often than a 5% rate explains
 * (binomial, 1e-3) and no model failed; 1 otherwise; 2 on a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_errno.h>

#include "tests/accuracy.h"

static int write_file(const char *dir, const char *name, const acc_table *t, const acc_results *res,
                      int what)
{
    char path[1024];
    FILE *fp;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fp = fopen(path, "w");
    if (fp == NULL) {
        fprintf(stderr, "accuracy: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (what == 0)
        acc_table_write_md(fp, t, res);
    else if (what == 1)
        acc_table_write_csv(fp, t);
    else
        acc_write_misses(fp, res, t, 0);
    return fclose(fp) == 0 ? 0 : -1;
}

static int make_dirs(const char *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models", out);
    if ((mkdir(out, 0777) != 0 && errno != EEXIST) || (mkdir(path, 0777) != 0 && errno != EEXIST)) {
        fprintf(stderr, "accuracy: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* DIR/models/acc-FAMILY-SEED.xml: a model with a miss, for `archcheck check --validate`. */
static int write_model(const char *out, const acc_model *gm)
{
    char path[1024];
    FILE *fp;
    snprintf(path, sizeof path, "%s/models/acc-%s-%lu.xml", out, acc_family_name(gm->family),
             gm->seed);
    fp = fopen(path, "w");
    if (fp != NULL) {
        int bad = fputs(gm->xml, fp) < 0;
        if (fclose(fp) == 0 && !bad)
            return 0;
    }
    fprintf(stderr, "accuracy: cannot write %s\n", path);
    return -1;
}

/* The family named `name`, or ACC_NFAMILIES. */
static acc_family family_named(const char *name)
{
    for (int f = 0; f < ACC_NFAMILIES; f++)
        if (strcmp(acc_family_name((acc_family)f), name) == 0)
            return (acc_family)f;
    return ACC_NFAMILIES;
}

static int parse_args(int argc, char **argv, size_t *count, unsigned long *seed, const char **out,
                      int *family, acc_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (v == NULL)
            return -1;
        i++;
        if (strcmp(argv[i - 1], "--out") == 0) {
            *out = v;
            continue;
        }
        if (strcmp(argv[i - 1], "--family") == 0) {
            *family = (int)family_named(v);
            if (*family == ACC_NFAMILIES)
                return -1;
            continue;
        }
        if (strcmp(argv[i - 1], "--count") == 0)
            *count = (size_t)strtoul(v, &end, 10);
        else if (strcmp(argv[i - 1], "--seed") == 0)
            *seed = strtoul(v, &end, 10);
        else if (strcmp(argv[i - 1], "--events") == 0)
            o->events_per_rep = strtod(v, &end);
        else if (strcmp(argv[i - 1], "--budget") == 0)
            o->max_events = (unsigned long long)strtod(v, &end);
        else
            return -1;
        if (end == NULL || *end != '\0' || end == v)
            return -1;
    }
    return *count > 0 && o->events_per_rep > 0.0 && o->max_events > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t count = 1000, failures, errors;
    unsigned long seed = 1;
    const char *out = "build/accuracy";
    int family = -1;
    acc_options opt;
    acc_results res;
    acc_table t;
    gsl_set_error_handler_off(); /* every GSL status is checked where it is called */
    acc_options_init(&opt);
    memset(&res, 0, sizeof res);
    if (parse_args(argc, argv, &count, &seed, &out, &family, &opt) != 0) {
        fprintf(stderr,
                "usage: accuracy [--count N] [--seed S] [--family NAME] [--out DIR] [--events E] "
                "[--budget B]\n");
        return 2;
    }
    if (make_dirs(out) != 0)
        return 1;
    for (size_t i = 0; i < count; i++) {
        acc_model gm;
        size_t first = res.n, misses = 0;
        acc_family f = family >= 0 ? (acc_family)family : acc_family_of(i);
        if (acc_model_generate(seed + i, f, &gm) != AC_OK ||
            acc_run_model(&gm, &opt, &res) != AC_OK) {
            fprintf(stderr, "accuracy: out of memory\n");
            return 1;
        }
        for (size_t k = first; k < res.n; k++)
            misses += (size_t)res.kpis[k].miss;
        if (misses > 0 && write_model(out, &gm) != 0)
            return 1;
        acc_model_clear(&gm);
        if ((i + 1) % 50 == 0)
            fprintf(stderr, "accuracy: %zu/%zu models, %zu KPIs\n", i + 1, count, res.n);
    }
    if (acc_table_build(&res, &t) != AC_OK) {
        fprintf(stderr, "accuracy: out of memory\n");
        return 1;
    }
    if (write_file(out, "accuracy.md", &t, &res, 0) != 0 ||
        write_file(out, "accuracy.csv", &t, &res, 1) != 0 ||
        write_file(out, "misses.txt", &t, &res, 2) != 0)
        return 1;
    acc_table_write_md(stdout, &t, &res);
    failures = acc_table_failures(&t);
    errors = res.errors;
    printf("\n%zu failing rows, %zu model errors; details in %s/misses.txt\n", failures, errors,
           out);
    acc_table_clear(&t);
    acc_results_clear(&res);
    return failures > 0 || errors > 0 ? 1 : 0;
}
