/*
 * The documentation describes what the binary does (AC_TEST_BIN, run in AC_SOURCE_DIR):
 * - every option the README and the man page attribute to a command is in that command's
 *   --help, and every option of --help is in the man page's list for that command;
 * - every environment variable the code reads (getenv) is in the man page's ENVIRONMENT
 *   section and in the README, and the man page lists no other;
 * - doc/format.md names every element and attribute of the XSD and every rule id;
 * - no document or source comment points at the shared spec (spec/..., ../shared);
 * - the headroom factor is worded by its value: below 1 it says that there is no headroom,
 *   what fails where, and to what share the workload must shrink (closed form: the
 *   utilisation of a pool is Lambda / (N mu), so a limit u_max binds at alpha = u_max / rho).
 */
#include "helpers.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>

#define MAX_NAMES 256

typedef struct name_set {
    char *names[MAX_NAMES];
    size_t n;
} name_set;

static void set_add(name_set *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->names[i]) == len && strncmp(s->names[i], name, len) == 0)
            return;
    assert_true(s->n < MAX_NAMES);
    s->names[s->n] = strndup(name, len);
    assert_non_null(s->names[s->n]);
    s->n++;
}

static int set_has(const name_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0)
            return 1;
    return 0;
}

static void set_free(name_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    s->n = 0;
}

static char *source_file(const char *rel)
{
    char path[4096];
    char *s;
    snprintf(path, sizeof path, "%s/%s", AC_SOURCE_DIR, rel);
    s = ac_test_read_file(path);
    if (s == NULL)
        fail_msg("cannot read %s", path);
    return s;
}

/* roff to plain text: "\-" becomes "-", font escapes (\fB, \fR, \fI, \fP) are dropped. */
static char *roff_plain(const char *s)
{
    char *out = malloc(strlen(s) + 1), *w = out;
    assert_non_null(out);
    while (*s != '\0') {
        if (s[0] == '\\' && s[1] == '-') {
            *w++ = '-';
            s += 2;
        } else if (s[0] == '\\' && s[1] == 'f' && s[2] != '\0') {
            s += 3;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
    return out;
}

/* Command-line options in [s, s + len): "--long-name" and "-x" (a letter alone), each
 * starting a word (not inside "non-negative" or "1-4"). */
static void scan_options(const char *s, size_t len, name_set *out)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] != '-' || (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '-' ||
                                      s[i - 1] == '_' || s[i - 1] == '/')))
            continue;
        if (s[i + 1] == '-' && i + 2 < len && isalpha((unsigned char)s[i + 2])) {
            size_t j = i + 2;
            while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '-'))
                j++;
            while (s[j - 1] == '-')
                j--;
            set_add(out, s + i, j - i);
            i = j - 1;
        } else if (isalpha((unsigned char)s[i + 1]) &&
                   (i + 2 >= len ||
                    (!isalnum((unsigned char)s[i + 2]) && s[i + 2] != '-' && s[i + 2] != '_'))) {
            set_add(out, s + i, 2);
            i++;
        }
    }
}

/* Options inside the `code spans` of [s, s + len). */
static void scan_code_spans(const char *s, size_t len, name_set *out)
{
    size_t i = 0;
    while (i < len) {
        const char *a = memchr(s + i, '`', len - i), *b;
        if (a == NULL)
            return;
        b = memchr(a + 1, '`', len - (size_t)(a + 1 - s));
        if (b == NULL)
            return;
        scan_options(a + 1, (size_t)(b - a - 1), out);
        i = (size_t)(b - s) + 1;
    }
}

static const char *const commands[] = {"lint",  "check",  "solve",  "simulate", "compare",
                                       "rules", "schema", "search", "size"};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int is_help(const char *opt)
{
    return strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0;
}

/* The options of `archcheck CMD --help` (which must succeed). */
static void help_options(const char *cmd, name_set *out)
{
    ac_test_run r = run_ac(cmd, "--help", NULL);
    if (r.status != 0)
        fail_msg("archcheck %s --help exits %d:\n%s", cmd, r.status, r.err);
    assert_non_null(strstr(r.out, "usage: archcheck"));
    scan_options(r.out, strlen(r.out), out);
    ac_test_run_free(&r);
}

/* The man page as plain lines (a NULL-terminated array into one buffer). */
typedef struct man_page {
    char *text;
    char **lines;
    size_t n;
} man_page;

static man_page man_read(void)
{
    man_page p = {NULL, NULL, 0};
    char *raw = source_file("doc/archcheck.1");
    size_t cap = 1;
    p.text = roff_plain(raw);
    free(raw);
    for (const char *c = p.text; *c; c++)
        cap += *c == '\n';
    p.lines = calloc(cap + 1, sizeof *p.lines);
    assert_non_null(p.lines);
    for (char *save = NULL, *l = strtok_r(p.text, "\n", &save); l != NULL;
         l = strtok_r(NULL, "\n", &save))
        p.lines[p.n++] = l;
    return p;
}

static void man_free(man_page *p)
{
    free(p->text);
    free(p->lines);
}

/* The line range [*from, *to) of section `name` (.SH), and within it, when `sub` is not NULL,
 * of its subsection (.SS). Returns 0 when absent. */
static int man_range(const man_page *p, const char *name, const char *sub, size_t *from, size_t *to)
{
    size_t i = 0, j;
    char want[128];
    snprintf(want, sizeof want, ".SH %s", name);
    while (i < p->n && strcmp(p->lines[i], want) != 0)
        i++;
    if (i == p->n)
        return 0;
    for (j = i + 1; j < p->n && strncmp(p->lines[j], ".SH ", 4) != 0; j++)
        ;
    if (sub == NULL) {
        *from = i + 1;
        *to = j;
        return 1;
    }
    snprintf(want, sizeof want, ".SS %s", sub);
    for (size_t k = i + 1; k < j; k++) {
        if (strcmp(p->lines[k], want) != 0)
            continue;
        *from = k + 1;
        for (*to = k + 1; *to < j && strncmp(p->lines[*to], ".SS ", 4) != 0; (*to)++)
            ;
        return 1;
    }
    return 0;
}

/* The options in the tags (the line after each .TP) of the man page's list for `cmd`. */
static void man_listed_options(const man_page *p, const char *cmd, name_set *out)
{
    size_t from, to;
    if (!man_range(p, "OPTIONS", cmd, &from, &to))
        fail_msg("the man page's OPTIONS has no subsection '.SS %s'", cmd);
    for (size_t i = from; i + 1 < to; i++)
        if (strcmp(p->lines[i], ".TP") == 0)
            scan_options(p->lines[i + 1], strlen(p->lines[i + 1]), out);
}

/* The options the man page's COMMANDS entry of `cmd` mentions in its text. */
static void man_command_options(const man_page *p, const char *cmd, name_set *out)
{
    size_t from, to;
    char tag[64];
    assert_true(man_range(p, "COMMANDS", NULL, &from, &to));
    snprintf(tag, sizeof tag, ".B %s", cmd);
    for (size_t i = from; i + 1 < to; i++) {
        if (strcmp(p->lines[i], ".TP") != 0 || strcmp(p->lines[i + 1], tag) != 0)
            continue;
        for (size_t k = i + 2; k < to && strcmp(p->lines[k], ".TP") != 0; k++)
            scan_options(p->lines[k], strlen(p->lines[k]), out);
        return;
    }
    fail_msg("the man page's COMMANDS does not describe '%s'", cmd);
}

/* The options the README attributes to `cmd`: its bullet "- `cmd`: ..." (with its indented
 * continuation lines), its row of the commands table, and every `archcheck cmd ...` span. */
static void readme_options(const char *readme, const char *cmd, name_set *out, size_t *bullets)
{
    char bullet[64], row[64], span[64];
    snprintf(bullet, sizeof bullet, "- `%s`:", cmd);
    snprintf(row, sizeof row, "| `archcheck %s", cmd);
    snprintf(span, sizeof span, "`archcheck %s ", cmd);
    for (const char *l = readme; *l != '\0';) {
        const char *e = strchr(l, '\n');
        size_t len = e != NULL ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, bullet, strlen(bullet)) == 0) {
            const char *end = e;
            while (end != NULL && strncmp(end + 1, "  ", 2) == 0)
                end = strchr(end + 1, '\n');
            len = end != NULL ? (size_t)(end - l) : strlen(l);
            scan_code_spans(l + strlen(bullet), len - strlen(bullet), out);
            (*bullets)++;
        } else if (strncmp(l, row, strlen(row)) == 0) {
            scan_code_spans(l, len, out);
        } else {
            for (const char *p = l; (p = strstr(p, span)) != NULL && p < l + len; p++) {
                const char *q = strchr(p + 1, '`');
                if (q != NULL && q < l + len)
                    scan_options(p + 1, (size_t)(q - p - 1), out);
            }
        }
        l += len;
        if (*l == '\n')
            l++;
    }
}

static void test_documented_options_are_the_helps(void **state)
{
    man_page man = man_read();
    char *readme = source_file("README.md");
    size_t bullets = 0, listed_total = 0;
    (void)state;
    for (size_t c = 0; c < NCOMMANDS; c++) {
        name_set help = {0}, listed = {0}, documented = {0};
        help_options(commands[c], &help);
        man_listed_options(&man, commands[c], &listed);
        man_command_options(&man, commands[c], &documented);
        readme_options(readme, commands[c], &documented, &bullets);
        for (size_t i = 0; i < listed.n; i++)
            set_add(&documented, listed.names[i], strlen(listed.names[i]));
        for (size_t i = 0; i < documented.n; i++)
            if (!is_help(documented.names[i]) && !set_has(&help, documented.names[i]))
                fail_msg("the docs give '%s' %s, which 'archcheck %s --help' does not list",
                         commands[c], documented.names[i], commands[c]);
        for (size_t i = 0; i < help.n; i++)
            if (!is_help(help.names[i]) && !set_has(&listed, help.names[i]))
                fail_msg("'archcheck %s --help' lists %s, which the man page's list for %s lacks",
                         commands[c], help.names[i], commands[c]);
        listed_total += listed.n;
        set_free(&help);
        set_free(&listed);
        set_free(&documented);
    }
    /* the parse found the lists: a bullet per command, and the long lists of check and co. */
    assert_int_equal(bullets, NCOMMANDS);
    assert_true(listed_total >= 40);
    free(readme);
    man_free(&man);
}

/* What the README says lint takes, and what lint refuses (the first contradiction). */
static void test_lint_refuses_what_it_does_not_take(void **state)
{
    ac_test_run r = run_ac("lint", "--fail-on", "never", "samples/tandem.xml", NULL);
    char *readme = source_file("README.md");
    name_set doc = {0};
    size_t bullets = 0;
    (void)state;
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    r = run_ac("lint", "--seed", "3", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    readme_options(readme, "lint", &doc, &bullets);
    assert_false(set_has(&doc, "--fail-on"));
    assert_false(set_has(&doc, "--seed"));
    assert_true(set_has(&doc, "--format"));
    set_free(&doc);
    free(readme);
}

/* `check --validate`: in the JSON every node has a "simulation" object and every check of a
 * quantity the simulator measures (latency, utilisation, loss, throughput) its
 * "simulation_value"; stability and headroom checks have none; the text output has the findings
 * and the summary only (README, man page). samples/tandem.xml passes every check, so its text
 * has no finding quoting a simulation. */
static void test_validate_values_where_documented(void **state)
{
    static const char *const measured[] = {"mean latency", "latency p", "utilization", "loss",
                                           "throughput"};
    ac_test_run j = run_ac("check", "--validate", "--format", "json", "samples/tandem.xml", NULL);
    ac_test_run t = run_ac("check", "--validate", "samples/tandem.xml", NULL);
    const char *p;
    size_t nodes = 0, checks = 0;
    (void)state;
    assert_int_equal(j.status, 0);
    assert_int_equal(t.status, 0);
    { /* one file: its keys at the top level, then again in "files" (counted once) */
        char *files = strstr(j.out, "\n  \"files\": [");
        assert_non_null(files);
        *files = '\0';
    }
    for (p = j.out; (p = strstr(p, "\"simulation\": {")) != NULL; p++)
        nodes++;
    assert_int_equal(nodes, 3);
    p = strstr(j.out, "\"checks\": [");
    assert_non_null(p);
    while ((p = strstr(p, "\"name\": \"")) != NULL) {
        const char *name = p + strlen("\"name\": \""), *next = strstr(name, "\"name\": \"");
        const char *sim = strstr(name, "\"simulation_value\": ");
        int has = sim != NULL && (next == NULL || sim < next), want = 0;
        for (size_t k = 0; k < sizeof measured / sizeof measured[0]; k++)
            want |= strncmp(name, measured[k], strlen(measured[k])) == 0;
        if (has != want)
            fail_msg("check '%.40s': simulation_value %s", name, has ? "present" : "missing");
        checks++;
        p = name;
    }
    assert_true(checks >= 8);
    assert_null(strstr(t.out, "simulation"));
    assert_null(strstr(t.out, "+-"));
    assert_non_null(strstr(t.out, "verdict: pass"));
    ac_test_run_free(&j);
    ac_test_run_free(&t);
}

/* ---- the environment ---- */

static const char *const code_dirs[] = {"common",   "parser", "solver", "sim",
                                        "analysis", "search", "report", "cli"};

/* The text of every .c and .h file of the library and the binary, concatenated. */
static char *all_code(void)
{
    size_t len = 0, cap = 1 << 20;
    char *all = malloc(cap);
    assert_non_null(all);
    all[0] = '\0';
    for (size_t d = 0; d < sizeof code_dirs / sizeof code_dirs[0]; d++) {
        char dir[4096];
        DIR *h;
        struct dirent *e;
        snprintf(dir, sizeof dir, "%s/%s", AC_SOURCE_DIR, code_dirs[d]);
        h = opendir(dir);
        if (h == NULL)
            continue; /* search/ may not exist yet */
        while ((e = readdir(h)) != NULL) {
            size_t n = strlen(e->d_name), k;
            char rel[512], *s;
            if (n < 3 ||
                (strcmp(e->d_name + n - 2, ".c") != 0 && strcmp(e->d_name + n - 2, ".h") != 0))
                continue;
            snprintf(rel, sizeof rel, "%s/%s", code_dirs[d], e->d_name);
            s = source_file(rel);
            k = strlen(s);
            while (len + k + 2 > cap) {
                cap *= 2;
                all = realloc(all, cap);
                assert_non_null(all);
            }
            memcpy(all + len, s, k);
            len += k;
            all[len++] = '\n';
            all[len] = '\0';
            free(s);
        }
        closedir(h);
    }
    return all;
}

/* Every variable getenv reads: a literal, or a macro #defined to one. */
static void code_environment(name_set *out)
{
    char *code = all_code();
    for (const char *p = code; (p = strstr(p, "getenv(")) != NULL; p++) {
        const char *a = p + strlen("getenv(");
        if (*a == '"') {
            const char *q = strchr(a + 1, '"');
            set_add(out, a + 1, (size_t)(q - a - 1));
        } else {
            char macro[128], def[160];
            size_t n = 0;
            const char *d;
            while ((isalnum((unsigned char)a[n]) || a[n] == '_') && n < sizeof macro - 1)
                n++;
            memcpy(macro, a, n);
            macro[n] = '\0';
            snprintf(def, sizeof def, "#define %s ", macro);
            d = strstr(code, def);
            if (d != NULL) /* the value may be aligned (clang-format) */
                d += strspn(d + strlen(def), " \t") + strlen(def);
            if (d == NULL || *d != '"')
                fail_msg("getenv(%s): no '#define %s \"...\"' found", macro, macro);
            d++;
            set_add(out, d, (size_t)(strchr(d, '"') - d));
        }
    }
    free(code);
}

static void test_environment_documented(void **state)
{
    man_page man = man_read();
    name_set code = {0}, listed = {0};
    char *readme = source_file("README.md");
    size_t from, to;
    (void)state;
    code_environment(&code);
    assert_true(set_has(&code, "ARCHCHECK_CJK_FONT")); /* the parse found the macro's value */
    assert_true(man_range(&man, "ENVIRONMENT", NULL, &from, &to));
    for (size_t i = from; i + 1 < to; i++)
        if (strcmp(man.lines[i], ".TP") == 0 && strncmp(man.lines[i + 1], ".B ", 3) == 0)
            set_add(&listed, man.lines[i + 1] + 3, strlen(man.lines[i + 1] + 3));
    for (size_t i = 0; i < code.n; i++) {
        char quoted[160];
        if (!set_has(&listed, code.names[i]))
            fail_msg("the code reads $%s, which the man page's ENVIRONMENT does not list",
                     code.names[i]);
        snprintf(quoted, sizeof quoted, "`%s`", code.names[i]);
        if (strstr(readme, quoted) == NULL)
            fail_msg("the code reads $%s, which the README does not mention", code.names[i]);
    }
    for (size_t i = 0; i < listed.n; i++)
        if (!set_has(&code, listed.names[i]))
            fail_msg("the man page lists $%s, which the code never reads", listed.names[i]);
    set_free(&code);
    set_free(&listed);
    free(readme);
    man_free(&man);
}

/* ---- the format reference ---- */

static void test_format_reference_complete(void **state)
{
    char *xsd = source_file("schema/archcheck.xsd"), *doc = source_file("doc/format.md");
    size_t elements = 0, attributes = 0, rules = 0;
    ac_test_run r = run_ac("rules", "--format", "json", NULL);
    (void)state;
    for (const char *p = xsd; (p = strstr(p, "<xs:")) != NULL; p++) {
        int is_elem = strncmp(p, "<xs:element name=\"", 18) == 0;
        int is_attr = strncmp(p, "<xs:attribute name=\"", 20) == 0;
        const char *n, *q;
        char want[160];
        if (!is_elem && !is_attr)
            continue;
        n = strchr(p, '"') + 1;
        q = strchr(n, '"');
        snprintf(want, sizeof want, is_elem ? "<%.*s" : "`%.*s`", (int)(q - n), n);
        if (strstr(doc, want) == NULL)
            fail_msg("doc/format.md does not name the %s %s of the schema",
                     is_elem ? "element" : "attribute", want);
        elements += (size_t)is_elem;
        attributes += (size_t)is_attr;
    }
    assert_true(elements >= 25 && attributes >= 100);
    assert_int_equal(r.status, 0);
    for (const char *p = r.out; (p = strstr(p, "\"id\": \"")) != NULL; p++) {
        char id[16];
        snprintf(id, sizeof id, "%.5s", p + 7);
        if (strstr(doc, id) == NULL)
            fail_msg("doc/format.md does not list the rule %s", id);
        rules++;
    }
    assert_true(rules >= 30);
    ac_test_run_free(&r);
    free(xsd);
    free(doc);
}

/* Documents and comments point at the project's own docs, never at the shared spec. */
static void test_no_pointer_outside(void **state)
{
    static const char *const docs[] = {"README.md",        "samples/README.md",   "doc/format.md",
                                       "doc/models.md",    "doc/serverless.md",   "doc/archcheck.1",
                                       "doc/ci/README.md", "schema/archcheck.xsd"};
    static const char *const bad[] = {"spec/format.md", "spec/models.md", "spec/output.md",
                                      "../shared", "/work/shared"};
    char *code = all_code();
    (void)state;
    for (size_t d = 0; d <= sizeof docs / sizeof docs[0]; d++) {
        char *s = d < sizeof docs / sizeof docs[0] ? source_file(docs[d]) : code;
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
            if (strstr(s, bad[b]) != NULL)
                fail_msg("%s points at %s", d < sizeof docs / sizeof docs[0] ? docs[d] : "the code",
                         bad[b]);
        if (s != code)
            free(s);
    }
    free(code);
}

/* ---- the headroom in words ---- */

static char tmpdir[] = "/tmp/ac_test_docsXXXXXX";

/* A pool of 10 servers at 10 jobs/s each fed `rate` jobs/s: utilisation rate / 100. With the
 * requirement utilisation <= 0.6, the headroom factor is 0.6 / (rate / 100). */
static char *write_pool(const char *name, const char *rate)
{
    char *path = malloc(strlen(tmpdir) + strlen(name) + 2);
    FILE *fp;
    assert_non_null(path);
    sprintf(path, "%s/%s", tmpdir, name);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fprintf(fp,
            "<architecture name=\"h\" format=\"1\">\n"
            "  <workload><source id=\"users\" to=\"web\" rate=\"%s/s\"/></workload>\n"
            "  <pool id=\"web\" servers=\"10\" service-time=\"100ms\"/>\n"
            "  <requirements>\n"
            "    <utilization max=\"0.6\"/>\n"
            "    <headroom min=\"1.2\"/>\n"
            "  </requirements>\n"
            "</architecture>\n",
            rate);
    assert_int_equal(fclose(fp), 0);
    return path;
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    (void)state;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char p[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
        unlink(p);
    }
    if (d != NULL)
        closedir(d);
    return rmdir(tmpdir);
}

/* pdftotext of a PDF, white space collapsed. */
static char *pdf_text(const char *pdf)
{
    char prog[] = "/usr/bin/pdftotext", dash[] = "-", *file = strdup(pdf);
    char *argv[] = {prog, file, dash, NULL};
    ac_test_run r = ac_test_exec(NULL, argv);
    char *w = r.out;
    int space = 0;
    free(file);
    assert_int_equal(r.status, 0);
    for (const char *s = r.out; *s != '\0'; s++) {
        if (isspace((unsigned char)*s)) {
            space = 1;
            continue;
        }
        if (space && w != r.out)
            *w++ = ' ';
        space = 0;
        *w++ = *s;
    }
    *w = '\0';
    free(r.err);
    return r.out;
}

/* The factor of the JSON's "headroom" object. */
static double json_headroom(const char *json)
{
    const char *p = strstr(json, "\"headroom\": {");
    assert_non_null(p);
    p = strstr(p, "\"factor\": ");
    assert_non_null(p);
    return strtod(p + strlen("\"factor\": "), NULL);
}

static void test_headroom_below_one(void **state)
{
    /* 90 jobs/s: utilisation 0.9 > 0.6 today; factor 0.6 / 0.9 = 2/3 */
    char *xml = write_pool("shrink.xml", "90");
    char pdf[4096], *text;
    ac_test_run r = run_ac("solve", xml, NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "No headroom: the utilization requirement fails at 'web' "
                                  "already at the current workload"));
    assert_non_null(strstr(r.out, "must shrink to 66.67% of its rate"));
    assert_null(strstr(r.out, "can grow"));
    ac_test_run_free(&r);

    r = run_ac("solve", "--format", "json", xml, NULL);
    assert_int_equal(r.status, 0);
    assert_double_close(json_headroom(r.out), 2.0 / 3.0, 0.0, 2e-6);
    ac_test_run_free(&r);

    snprintf(pdf, sizeof pdf, "%s/shrink.pdf", tmpdir);
    r = run_ac("check", "--report", pdf, xml, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "requirement headroom not met: there is no headroom, "
                                  "utilization already fails at web at the current workload"));
    assert_non_null(strstr(r.out, "shrink to 66.67%"));
    assert_non_null(strstr(r.out, "[AC205]"));
    assert_null(strstr(r.out, "can grow"));
    ac_test_run_free(&r);
    text = pdf_text(pdf);
    assert_non_null(strstr(text, "No headroom: the utilization requirement fails at 'web'"));
    assert_non_null(strstr(text, "66.67%"));
    assert_null(strstr(text, "can grow"));
    assert_null(strstr(text, "every requirement still met"));
    free(text);
    free(xml);
}

static void test_headroom_above_one(void **state)
{
    /* 30 jobs/s: utilisation 0.3; factor 0.6 / 0.3 = 2 */
    char *xml = write_pool("grow.xml", "30");
    ac_test_run r = run_ac("solve", xml, NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "The workload can grow by a factor of 2 (every source to 200% "
                                  "of its rate)"));
    assert_non_null(strstr(r.out, "beyond it the utilization requirement fails at 'web'"));
    assert_null(strstr(r.out, "No headroom"));
    ac_test_run_free(&r);
    free(xml);
}

/* samples/overloaded.xml: render at rho = 1.125 against utilisation <= 0.85: 0.85 / 1.125. */
static void test_headroom_overloaded_sample(void **state)
{
    ac_test_run r = run_ac("solve", "samples/overloaded.xml", NULL);
    (void)state;
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "No headroom: the utilization requirement fails at 'render'"));
    assert_non_null(strstr(r.out, "must shrink to 75.56% of its rate"));
    assert_null(strstr(r.out, "can grow by a factor of 0."));
    ac_test_run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_documented_options_are_the_helps),
        cmocka_unit_test(test_lint_refuses_what_it_does_not_take),
        cmocka_unit_test(test_validate_values_where_documented),
        cmocka_unit_test(test_environment_documented),
        cmocka_unit_test(test_format_reference_complete),
        cmocka_unit_test(test_no_pointer_outside),
        cmocka_unit_test(test_headroom_below_one),
        cmocka_unit_test(test_headroom_above_one),
        cmocka_unit_test(test_headroom_overloaded_sample),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
