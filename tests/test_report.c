/*
 * The PDF report and the CI baseline, end to end through the binary (AC_TEST_BIN, run in
 * AC_SOURCE_DIR): the text of the PDF (pdftotext) holds the verdict, every check and the
 * numbers of the JSON; the same input gives the same bytes; a report that cannot be written
 * exits 2 and leaves nothing; non-Latin labels survive (Hangul drawn with the CJK fallback font,
 * embedded only when needed); baselines accept the known findings
 * and still fail on new ones.
 */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <ctype.h>

#include <gsl/gsl_errno.h>
#include <libxml/parser.h>

static char tmpdir[] = "/tmp/ac_test_reportXXXXXX";

static char *tmp_path(const char *name)
{
    size_t n = strlen(tmpdir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", tmpdir, name);
    return p;
}

/* The text of a PDF by pdftotext (stderr dropped: poppler warns about libharu's CMap),
 * with every run of white space collapsed to one space. */
static char *pdf_text(const char *pdf)
{
    char prog[] = "/usr/bin/pdftotext", dash[] = "-";
    char *file = strdup(pdf);
    char *argv[] = {prog, file, dash, NULL};
    ac_test_run r = ac_test_exec(NULL, argv);
    char *s = r.out, *w = r.out;
    int space = 0;
    free(file);
    assert_int_equal(r.status, 0);
    for (; *s != '\0'; s++) {
        if (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\f' || *s == '\r') {
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

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Every string value of `key` in a JSON text ("key": "value"), one at a time. */
static const char *json_next_string(const char *json, const char *key, char *out, size_t size)
{
    char pat[64];
    const char *p, *q;
    size_t n;
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    p = strstr(json, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    q = strchr(p, '"');
    assert_non_null(q);
    n = (size_t)(q - p) < size - 1 ? (size_t)(q - p) : size - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return q;
}

static const char *json_next_number(const char *json, const char *key, double *out)
{
    char pat[64];
    const char *p;
    char *end;
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    p = strstr(json, pat);
    if (p == NULL)
        return NULL;
    p += strlen(pat);
    *out = strtod(p, &end);
    assert_true(end != p);
    return end;
}

/* The PDF of `sample` holds the verdict, every check name and the utilisations of the JSON. */
static void check_pdf_against_json(const char *sample, const char *verdict, int status)
{
    char *pdf = tmp_path("report.pdf"), *json_path = tmp_path("report.json");
    /* --no-search: serverless-pipeline's resilience searches take minutes */
    ac_test_run r = run_ac("check", "--no-search", "--format", "json", "-o", json_path, "--report",
                           pdf, sample, NULL);
    char *text, *json, name[256];
    const char *p;
    size_t checks = 0, utils = 0;
    double u;
    if (r.status != status)
        fail_msg("status %d, stderr:\n%s", r.status, r.err);
    text = pdf_text(pdf);
    json = ac_test_read_file(json_path);
    assert_non_null(json);
    assert_non_null(strstr(text, verdict));
    assert_non_null(strstr(text, "SHA-256"));
    p = strstr(json, "\"sha256\": \"");
    assert_non_null(p);
    assert_true(json_next_string(p - 1, "sha256", name, sizeof name) != NULL);
    assert_non_null(strstr(text, name));
    p = strstr(json, "\"checks\"");
    assert_non_null(p);
    while ((p = json_next_string(p, "name", name, sizeof name)) != NULL) {
        if (strstr(text, name) == NULL)
            fail_msg("check '%s' is not in the PDF text", name);
        checks++;
    }
    assert_true(checks > 0);
    p = strstr(json, "\"nodes\"");
    while (p != NULL && (p = json_next_number(p, "utilization", &u)) != NULL) {
        char num[32];
        snprintf(num, sizeof num, "%.4g", u); /* as the PDF prints it */
        if (strstr(text, num) == NULL)
            fail_msg("utilisation %s is not in the PDF text", num);
        utils++;
    }
    /* a design whose nodes are not analysed has no utilisation to print */
    assert_true(utils > 0 || strcmp(verdict, "INCONCLUSIVE") == 0);
    assert_non_null(strstr(text, "How these numbers were obtained"));
    assert_non_null(strstr(text, "End to end"));
    free(text);
    free(json);
    unlink(pdf);
    unlink(json_path);
    free(pdf);
    free(json_path);
    ac_test_run_free(&r);
}

static void test_tandem_pdf(void **state)
{
    (void)state;
    check_pdf_against_json("samples/tandem.xml", "PASS", 0);
}

static void test_retry_storm_pdf(void **state)
{
    (void)state;
    check_pdf_against_json("samples/retry-storm.xml", "FAIL", 1);
}

/* Same input and seed: the same bytes; --timestamp dates it. */
static void test_pdf_deterministic(void **state)
{
    char *a = tmp_path("a.pdf"), *b = tmp_path("b.pdf"), *c = tmp_path("c.pdf");
    ac_test_run r1, r2, r3;
    char *x, *y, *z;
    long n;
    (void)state;
    r1 = run_ac("check", "--seed", "7", "--report", a, "samples/tandem.xml", NULL);
    r2 = run_ac("check", "--seed", "7", "--report", b, "samples/tandem.xml", NULL);
    assert_int_equal(r1.status, 0);
    assert_int_equal(r2.status, 0);
    n = file_size(a);
    assert_true(n > 1000);
    assert_int_equal(n, file_size(b));
    x = ac_test_read_file(a);
    y = ac_test_read_file(b);
    assert_memory_equal(x, y, (size_t)n);
    assert_null(strstr(x, "/CreationDate"));
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    r3 = run_ac("check", "--seed", "7", "--timestamp", "--report", c, "samples/tandem.xml", NULL);
    unsetenv("SOURCE_DATE_EPOCH");
    assert_int_equal(r3.status, 0);
    z = ac_test_read_file(c);
    assert_non_null(z);
    assert_non_null(strstr(z, "/CreationDate (D:20231114221320Z"));
    free(x);
    free(y);
    free(z);
    unlink(a);
    unlink(b);
    unlink(c);
    free(a);
    free(b);
    free(c);
    ac_test_run_free(&r1);
    ac_test_run_free(&r2);
    ac_test_run_free(&r3);
}

static size_t count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* A report that cannot be written: exit 2, a reason, and nothing left behind (as root too). */
static void test_pdf_write_failure(void **state)
{
    char *missing = tmp_path("no/such/dir/r.pdf"), *sub = tmp_path("sub"), *ok = tmp_path("f.pdf");
    ac_test_run r;
    (void)state;
    assert_int_equal(count_entries(tmpdir), 0);
    r = run_ac("check", "--report", missing, "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot write"));
    ac_test_run_free(&r);
    assert_int_equal(count_entries(tmpdir), 0);

    /* the target is a directory: the rename fails, the temporary file goes */
    assert_int_equal(mkdir(sub, 0755), 0);
    r = run_ac("check", "--report", sub, "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cannot write"));
    ac_test_run_free(&r);
    assert_int_equal(count_entries(tmpdir), 1);
    assert_int_equal(count_entries(sub), 0);

    /* a libharu failure (the font cannot be loaded): the error handler jumps out cleanly */
    setenv("ARCHCHECK_FONT_DIR", "/nonexistent-fonts", 1);
    r = run_ac("check", "--report", ok, "samples/tandem.xml", NULL);
    unsetenv("ARCHCHECK_FONT_DIR");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "font"));
    assert_int_equal(file_size(ok), -1);
    assert_int_equal(count_entries(tmpdir), 1);
    ac_test_run_free(&r);

    /* /proc refuses new files even to root */
    r = run_ac("check", "--report", "/proc/ac_report.pdf", "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    rmdir(sub);
    free(missing);
    free(sub);
    free(ok);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Korean and Greek labels come out of the PDF as they went in. */
static void test_pdf_unicode_label(void **state)
{
    char *xml = tmp_path("uni.xml"), *pdf = tmp_path("uni.pdf"), *text;
    ac_test_run r;
    (void)state;
    write_file(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<architecture name=\"uni\" format=\"1\" label=\"상점 Ελληνικά\">\n"
                    "  <workload><source id=\"s\" to=\"p\" rate=\"10/s\"/></workload>\n"
                    "  <pool id=\"p\" servers=\"2\" service-rate=\"10/s\" dispatch=\"random\"\n"
                    "        label=\"상점 Ελληνικά\"/>\n"
                    "</architecture>\n");
    r = run_ac("check", "--report", pdf, xml, NULL);
    assert_int_equal(r.status, 0);
    text = pdf_text(pdf);
    assert_non_null(strstr(text, "상점 Ελληνικά (uni)"));
    assert_non_null(strstr(text, "Node p — 상점 Ελληνικά"));
    free(text);
    ac_test_run_free(&r);
    unlink(xml);
    unlink(pdf);
    free(xml);
    free(pdf);
}

/* The fonts of a PDF as pdffonts lists them (stderr dropped). */
static char *pdf_fonts(const char *pdf)
{
    char prog[] = "/usr/bin/pdffonts";
    char *file = strdup(pdf);
    char *argv[] = {prog, file, NULL};
    ac_test_run r = ac_test_exec(NULL, argv);
    free(file);
    assert_int_equal(r.status, 0);
    free(r.err);
    return r.out;
}

/* The line of pdffonts's listing that names `font`, or NULL. */
static const char *font_line(const char *fonts, const char *font, char *line, size_t size)
{
    const char *p = strstr(fonts, font), *start, *end;
    size_t n;
    if (p == NULL)
        return NULL;
    for (start = p; start > fonts && start[-1] != '\n'; start--)
        ;
    end = strchr(p, '\n');
    n = end != NULL ? (size_t)(end - start) : strlen(start);
    if (n >= size)
        n = size - 1;
    memcpy(line, start, n);
    line[n] = '\0';
    return line;
}

static size_t count_substr(const char *s, const char *sub)
{
    size_t n = 0;
    for (const char *p = strstr(s, sub); p != NULL; p = strstr(p + strlen(sub), sub))
        n++;
    return n;
}

/* Hangul is drawn with the CJK fallback (embedded, subset) only when a report needs it; a
 * missing fallback draws boxes, says so once, and fails nothing. */
static void test_pdf_cjk_font(void **state)
{
    char *xml = tmp_path("ko.xml"), *pdf = tmp_path("ko.pdf"), *pdf2 = tmp_path("ko2.pdf");
    char *plain = tmp_path("plain.pdf"), *boxes = tmp_path("boxes.pdf"),
         *junk = tmp_path("junk.ttf");
    char *fonts, *text, *x, *y;
    const char *saved = getenv("ARCHCHECK_CJK_FONT");
    char *saved_copy = saved != NULL ? strdup(saved) : NULL;
    char line[256];
    ac_test_run r;
    long n;
    (void)state;
    unsetenv("ARCHCHECK_CJK_FONT");
    if (access("/usr/share/fonts/truetype/nanum/NanumGothic.ttf", R_OK) != 0)
        fail_msg("the CJK fallback font is missing: install the Debian package fonts-nanum "
                 "(scripts/deps.sh)");
    write_file(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<architecture name=\"ko\" format=\"1\" label=\"사내 업무 도구\">\n"
                    "  <workload><source id=\"s\" to=\"app\" rate=\"10/s\"/></workload>\n"
                    "  <pool id=\"app\" servers=\"2\" service-rate=\"10/s\" dispatch=\"random\"\n"
                    "        label=\"애플리케이션 서버\"/>\n"
                    "</architecture>\n");
    r = run_ac("check", "--report", pdf, xml, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    fonts = pdf_fonts(pdf);
    if (font_line(fonts, "+NanumGothic", line, sizeof line) == NULL)
        fail_msg("no NanumGothic font in the PDF:\n%s", fonts);
    /* CID TrueType, Identity-H, emb yes, sub yes */
    assert_non_null(strstr(line, "Identity-H       yes yes"));
    assert_non_null(strstr(fonts, "+DejaVuSans,Book"));
    free(fonts);
    text = pdf_text(pdf);
    assert_non_null(strstr(text, "사내 업무 도구 (ko)"));
    assert_non_null(strstr(text, "Node app — 애플리케이션 서버"));
    assert_null(strstr(text, "empty boxes"));
    free(text);
    /* deterministic with the fallback too */
    r = run_ac("check", "--report", pdf2, xml, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    n = file_size(pdf);
    assert_int_equal(n, file_size(pdf2));
    x = ac_test_read_file(pdf);
    y = ac_test_read_file(pdf2);
    assert_memory_equal(x, y, (size_t)n);
    free(x);
    free(y);

    /* no CJK text: no fallback font */
    r = run_ac("check", "--report", plain, "samples/tandem.xml", NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    fonts = pdf_fonts(plain);
    assert_non_null(strstr(fonts, "+DejaVuSans,Book"));
    assert_null(strstr(fonts, "Nanum"));
    free(fonts);
    assert_true(file_size(plain) < n);

    /* the fallback cannot be loaded (missing, or not a font): boxes and one note */
    write_file(junk, "not a TrueType font\n");
    for (int k = 0; k < 2; k++) {
        setenv("ARCHCHECK_CJK_FONT", k == 0 ? "/nonexistent/cjk.ttf" : junk, 1);
        r = run_ac("check", "--report", boxes, xml, NULL);
        unsetenv("ARCHCHECK_CJK_FONT");
        assert_int_equal(r.status, 0);
        ac_test_run_free(&r);
        fonts = pdf_fonts(boxes);
        assert_null(strstr(fonts, "Nanum"));
        free(fonts);
        text = pdf_text(boxes);
        assert_non_null(strstr(text, "Node app — 애플리케이션 서버"));
        assert_int_equal(count_substr(text, "drawn as empty boxes"), 1);
        assert_non_null(strstr(text, k == 0 ? "/nonexistent/cjk.ttf" : junk));
        free(text);
        unlink(boxes);
    }

    if (saved_copy != NULL)
        setenv("ARCHCHECK_CJK_FONT", saved_copy, 1);
    free(saved_copy);
    unlink(xml);
    unlink(pdf);
    unlink(pdf2);
    unlink(plain);
    unlink(junk);
    free(junk);
    free(xml);
    free(pdf);
    free(pdf2);
    free(plain);
    free(boxes);
}

/* A small failing design: utilisation 0.9 against a limit of 0.8. */
static const char baseline_xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<architecture name=\"b\" format=\"1\">\n"
    "  <workload><source id=\"s\" to=\"web\" rate=\"90/s\"/></workload>\n"
    "  <pool id=\"web\" servers=\"10\" service-rate=\"10/s\" dispatch=\"random\"/>\n"
    "  <requirements>\n"
    "    <utilization max=\"0.8\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

/* --write-baseline then --baseline: the same findings pass; a new one still fails. */
static void test_baseline(void **state)
{
    char *base = tmp_path("baseline.json"), *xml = tmp_path("b.xml"), *json;
    char edited[2048];
    const char *p;
    ac_test_run r;
    (void)state;
    write_file(xml, baseline_xml);
    r = run_ac("check", "--no-validate", xml, NULL);
    assert_int_equal(r.status, 1);
    ac_test_run_free(&r);

    r = run_ac("check", "--no-validate", "--write-baseline", base, xml, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);
    json = ac_test_read_file(base);
    assert_non_null(json);
    assert_non_null(strstr(json, "\"archcheck_baseline\": 1"));
    assert_non_null(strstr(json, "\"node\": \"web\""));
    assert_non_null(strstr(json, "\"fingerprint\": \""));
    assert_null(strstr(json, "\"line\""));
    free(json);

    r = run_ac("check", "--no-validate", "--format", "json", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"verdict\": \"pass\""));
    assert_non_null(strstr(r.out, "\"suppression_reason\": \"in baseline\""));
    ac_test_run_free(&r);

    /* lines move (a comment added above): still the same findings */
    p = strstr(baseline_xml, "<architecture");
    assert_non_null(p);
    snprintf(edited, sizeof edited, "%.*s<!-- moved\n\n\n -->\n%s", (int)(p - baseline_xml),
             baseline_xml, p);
    write_file(xml, edited);
    r = run_ac("check", "--no-validate", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 0);
    ac_test_run_free(&r);

    /* a new finding: a latency requirement that fails */
    p = strstr(edited, "  </requirements>");
    assert_non_null(p);
    {
        char more[2048];
        snprintf(more, sizeof more, "%.*s    <latency percentile=\"99\" max=\"10ms\"/>\n%s",
                 (int)(p - edited), edited, p);
        write_file(xml, more);
    }
    r = run_ac("check", "--no-validate", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "(1 suppressed)"));
    ac_test_run_free(&r);

    /* a file that is not a baseline is an error of the command line */
    write_file(base, "{\"findings\": []}");
    r = run_ac("check", "--no-validate", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 2);
    ac_test_run_free(&r);
    write_file(base, "{\"archcheck_baseline\": 1, \"findings\": [ {\"rule\": ");
    r = run_ac("check", "--no-validate", "--baseline", base, xml, NULL);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "not valid"));
    ac_test_run_free(&r);

    unlink(base);
    unlink(xml);
    free(base);
    free(xml);
}

/* The SARIF of a failing design against the SARIF 2.1.0 schema, when a validator and the
 * schema are available offline (AC_SARIF_VALIDATE: a command taking the SARIF file). */
static void test_sarif_schema(void **state)
{
    const char *cmd = getenv("AC_SARIF_VALIDATE");
    char *sarif = tmp_path("storm.sarif");
    ac_test_run r;
    struct stat st;
    (void)state;
    /* scripts/sarif-validate.sh installs the schema and ajv there (npm) */
    if ((cmd == NULL || cmd[0] == '\0') &&
        stat(AC_SOURCE_DIR "/build/sarif-validator/node_modules/@microsoft/jest-sarif", &st) == 0)
        cmd = "SARIF_VALIDATOR_DIR=" AC_SOURCE_DIR "/build/sarif-validator sh " AC_SOURCE_DIR
              "/scripts/sarif-validate.sh";
    if (cmd == NULL || cmd[0] == '\0') {
        free(sarif);
        skip();
    }
    r = run_ac("check", "--no-validate", "--format", "sarif", "-o", sarif,
               "samples/retry-storm.xml", NULL);
    assert_int_equal(r.status, 1);
    ac_test_run_free(&r);
    {
        char sh[] = "/bin/sh", c[] = "-c";
        char *argv[] = {sh, c, NULL, NULL};
        size_t n = strlen(cmd) + strlen(sarif) + 8;
        char *line = malloc(n);
        assert_non_null(line);
        snprintf(line, n, "%s '%s'", cmd, sarif);
        argv[2] = line;
        r = ac_test_exec(NULL, argv);
        if (r.status != 0)
            fail_msg("SARIF validation failed:\n%s%s", r.out, r.err);
        ac_test_run_free(&r);
        free(line);
    }
    unlink(sarif);
    free(sarif);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(tmpdir);
}

/* ---- every sample in every format ---------------------------------------------------------- */

/* A JSON value, checked by a recursive-descent parser of RFC 8259 (no library needed):
 * returns the position after the value, or NULL if the text is not JSON. */
static const char *json_skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_string_end(const char *p)
{
    if (*p != '"')
        return NULL;
    for (p++; *p != '"'; p++) {
        if (*p == '\0' || (unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 4;
            } else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0') {
                return NULL;
            }
        }
    }
    return p + 1;
}

static const char *json_value(const char *p, int depth)
{
    p = json_skip_ws(p);
    if (depth > 64)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        int object = *p == '{';
        p = json_skip_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (object) {
                p = json_string_end(json_skip_ws(p));
                if (p == NULL)
                    return NULL;
                p = json_skip_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = json_value(p, depth + 1);
            if (p == NULL)
                return NULL;
            p = json_skip_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return json_string_end(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    {
        char *end;
        const char *q = p;
        if (*q == '-')
            q++;
        if (!isdigit((unsigned char)*q))
            return NULL;
        (void)strtod(p, &end);
        return end > p ? end : NULL;
    }
}

static int json_valid(const char *text)
{
    const char *end = json_value(text, 0);
    return end != NULL && *json_skip_ws(end) == '\0';
}

static const struct {
    const char *file;
    const char *verdict; /* as the PDF prints it */
    const char *json;    /* as the JSON writes it */
    int status;
} every_sample[] = {
    {"samples/tandem.xml", "PASS", "pass", 0},
    {"samples/web-tier.xml", "PASS", "pass", 0},
    {"samples/closed-network.xml", "PASS", "pass", 0},
    {"samples/overloaded.xml", "FAIL", "fail", 1},
    {"samples/retry-storm.xml", "FAIL", "fail", 1},
    {"samples/checkout.xml", "FAIL", "fail", 1},
    {"samples/serverless-pipeline.xml", "FAIL", "fail", 1},
    {"samples/thumbnail-service.xml", "PASS", "pass", 0},
};

/* The JSON, SARIF and JUnit of every sample parse and hold the keys and values of
 * doc/archcheck.1, consistent with each other. */
static void test_every_sample_machine_formats(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof every_sample / sizeof every_sample[0]; i++) {
        const char *f = every_sample[i].file;
        /* --no-search: serverless-pipeline's resilience searches take minutes */
        ac_test_run j = run_ac("check", "--no-search", "--format", "json", f, NULL);
        ac_test_run s = run_ac("check", "--no-search", "--format", "sarif", f, NULL);
        ac_test_run u = run_ac("check", "--no-search", "--format", "junit", f, NULL);
        char verdict[64];
        size_t findings, results, failures_junit = 0;
        xmlDocPtr doc;
        snprintf(verdict, sizeof verdict, "\"verdict\": \"%s\"", every_sample[i].json);
        if (!json_valid(j.out))
            fail_msg("%s: the JSON does not parse:\n%s", f, j.out);
        { /* one file: its keys at the top level, then again in "files" (counted once) */
            char *files = strstr(j.out, "\n  \"files\": [");
            assert_non_null(files);
            *files = '\0';
        }
        if (!json_valid(s.out))
            fail_msg("%s: the SARIF does not parse:\n%s", f, s.out);
        assert_int_equal(j.status, every_sample[i].status);
        assert_int_equal(s.status, every_sample[i].status);
        assert_int_equal(u.status, every_sample[i].status);
        assert_non_null(strstr(j.out, verdict));
        assert_non_null(strstr(j.out, "\"archcheck\": \"" AC_VERSION "\""));
        assert_non_null(strstr(j.out, "\"sha256\": \""));
        assert_non_null(strstr(j.out, "\"nodes\": ["));
        assert_non_null(strstr(j.out, "\"checks\": ["));
        assert_non_null(strstr(s.out, "\"version\": \"2.1.0\""));
        assert_non_null(strstr(s.out, "\"name\": \"archcheck\""));
        assert_non_null(strstr(s.out, "\"informationUri\": "));
        /* one SARIF result per finding of the JSON */
        findings = count_substr(j.out, "\"severity\": \""); /* only findings have one */
        results = count_substr(s.out, "\"ruleId\": \"AC");
        assert_int_equal(results, findings);
        if (findings > 0) {
            assert_non_null(strstr(s.out, "\"startLine\": "));
            assert_non_null(strstr(s.out, "\"uri\": \"samples/"));
        }
        /* JUnit: well-formed XML, one test case per check (and the verdict), failures iff
           the verdict is not a pass */
        doc = xmlReadMemory(u.out, (int)strlen(u.out), "junit.xml", NULL, XML_PARSE_NONET);
        if (doc == NULL)
            fail_msg("%s: the JUnit XML does not parse:\n%s", f, u.out);
        assert_string_equal((const char *)xmlDocGetRootElement(doc)->name, "testsuites");
        xmlFreeDoc(doc);
        assert_true(count_substr(u.out, "<testcase ") >= count_substr(j.out, "\"status\": \""));
        failures_junit = count_substr(u.out, "<failure ");
        if (every_sample[i].status == 1) {
            assert_true(failures_junit > 0);
        } else {
            assert_int_equal(failures_junit, 0);
            /* an inconclusive check is a skipped test case */
            if (every_sample[i].status == 3)
                assert_true(count_substr(u.out, "<skipped message=\"inconclusive: ") > 0);
        }
        ac_test_run_free(&j);
        ac_test_run_free(&s);
        ac_test_run_free(&u);
    }
}

/* The PDF of every sample holds its verdict, every check and the numbers of its JSON. */
static void test_every_sample_pdf(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof every_sample / sizeof every_sample[0]; i++)
        check_pdf_against_json(every_sample[i].file, every_sample[i].verdict,
                               every_sample[i].status);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tandem_pdf),
        cmocka_unit_test(test_retry_storm_pdf),
        cmocka_unit_test(test_pdf_deterministic),
        cmocka_unit_test(test_pdf_write_failure),
        cmocka_unit_test(test_pdf_unicode_label),
        cmocka_unit_test(test_pdf_cjk_font),
        cmocka_unit_test(test_baseline),
        cmocka_unit_test(test_every_sample_machine_formats),
        cmocka_unit_test(test_every_sample_pdf),
        cmocka_unit_test(test_sarif_schema),
    };
    gsl_set_error_handler_off();
    return cmocka_run_group_tests(tests, setup, teardown);
}
