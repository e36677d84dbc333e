/*
 * Every sample's PDF, page by page (issue #15, item 12), read back with poppler-utils:
 * `check --report` of each sample (samples/NAME.xml) and `compare --report` of a file with six
 * variants and of samples/retry-storm.xml. On every page: the footer numbers the page, no word lies
 * outside the page box or on another word (pdftotext -bbox), no "nan"/"inf"; every font is
 * embedded with a ToUnicode map (pdffonts); the page count is pdfinfo's and pdftoppm renders
 * every page; poppler says nothing on stderr. In the comparison,
 * every table row's cells stand in order on one line (pdftotext -layout) with the values and
 * best-value marks of `compare --format text`, the header holds whole variant ids, and the
 * best marks follow the closed form (the headroom of web-tier.xml: 0.85 / rho).
 * Skipped without poppler-utils.
 */
#define _XOPEN_SOURCE 700
#include "helpers.h"

#include <strings.h>
#include <dirent.h>
#include <stdint.h>

#define MAX_WORDS 20000
#define MAX_IDS   16

typedef struct word {
    double x0, y0, x1, y1;
    char text[64];
} word;

static int have_poppler(void)
{
    return system("pdftotext -v >/dev/null 2>&1 && pdffonts -v >/dev/null 2>&1 && "
                  "pdfinfo -v >/dev/null 2>&1 && pdftoppm -v >/dev/null 2>&1") == 0;
}

/* The value of attribute `name` in the tag at s. */
static double attr(const char *s, const char *name)
{
    char key[32];
    const char *p;
    snprintf(key, sizeof key, "%s=\"", name);
    p = strstr(s, key);
    assert_non_null(p);
    return strtod(p + strlen(key), NULL);
}

/* Check one page of pdftotext -bbox (from `page` to `end`): every word inside the page box
 * (a 20 pt rim), no word on another, no nan or inf. */
static void check_page_words(const char *pdf, int pageno, const char *page, const char *end,
                             word *w)
{
    double pw = attr(page, "width"), ph = attr(page, "height");
    size_t n = 0;
    for (const char *p = strstr(page, "<word "); p != NULL && p < end && n < MAX_WORDS;
         p = strstr(p + 1, "<word ")) {
        const char *t = strchr(p, '>') + 1, *e = strstr(t, "</word>");
        size_t len =
            (size_t)(e - t) < sizeof w[n].text - 1 ? (size_t)(e - t) : sizeof w[n].text - 1;
        w[n].x0 = attr(p, "xMin");
        w[n].y0 = attr(p, "yMin");
        w[n].x1 = attr(p, "xMax");
        w[n].y1 = attr(p, "yMax");
        memcpy(w[n].text, t, len);
        w[n].text[len] = '\0';
        if (w[n].x0 < 20.0 || w[n].x1 > pw - 20.0 || w[n].y0 < 20.0 || w[n].y1 > ph - 10.0)
            fail_msg("%s page %d: '%s' at (%.1f, %.1f)-(%.1f, %.1f) is outside the page box", pdf,
                     pageno, w[n].text, w[n].x0, w[n].y0, w[n].x1, w[n].y1);
        {
            const char *s = w[n].text + (w[n].text[0] == '-' || w[n].text[0] == '+');
            if (strcasecmp(s, "nan") == 0 || strcasecmp(s, "inf") == 0 ||
                strcasecmp(s, "infinity") == 0)
                fail_msg("%s page %d: '%s'", pdf, pageno, w[n].text);
        }
        n++;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double ox = fmin(w[i].x1, w[j].x1) - fmax(w[i].x0, w[j].x0);
            double oy = fmin(w[i].y1, w[j].y1) - fmax(w[i].y0, w[j].y0);
            if (ox > 0.5 && oy > 0.5 * fmin(w[i].y1 - w[i].y0, w[j].y1 - w[j].y0))
                fail_msg("%s page %d: '%s' and '%s' overlap", pdf, pageno, w[i].text, w[j].text);
        }
}

/* Render every page of `pdf` with pdftoppm (at 18 dpi: what is checked is that poppler
 * rasterises each page without a word on stderr); the number of images it wrote. */
static int rendered_pages(const char *pdf)
{
    char dir[] = "/tmp/ac_render_XXXXXX", cmd[1400], err[64];
    struct dirent *e;
    DIR *dp;
    char *warn;
    int n = 0;
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(cmd, sizeof cmd, "pdftoppm -r 18 -png '%s' '%s/p' 2>'%s'", pdf, dir, err);
    if (system(cmd) != 0)
        n = -1;
    warn = ac_test_read_file(err);
    unlink(err);
    dp = opendir(dir);
    while (dp != NULL && (e = readdir(dp)) != NULL) {
        char path[1200];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
        n += n >= 0;
    }
    if (dp != NULL)
        closedir(dp);
    rmdir(dir);
    if (warn != NULL && warn[0] != '\0')
        fail_msg("pdftoppm on %s says: %.300s", pdf, warn);
    free(warn);
    return n;
}

/* Every check of one PDF but the table's; returns its page count. */
static int check_pdf(const char *pdf)
{
    char *info = ac_test_poppler("pdfinfo", pdf, 1);
    char *bbox = ac_test_poppler("pdftotext -bbox", pdf, 1);
    char *layout = ac_test_poppler("pdftotext -layout", pdf, 1);
    char *fonts = ac_test_poppler("pdffonts", pdf, 1);
    const char *p, *q;
    int pages, k = 0, nfonts = 0;
    word *w = calloc(MAX_WORDS, sizeof *w);
    assert_non_null(info);
    assert_non_null(bbox);
    assert_non_null(layout);
    assert_non_null(fonts);
    assert_non_null(w);
    p = strstr(info, "Pages:");
    assert_non_null(p);
    pages = atoi(p + 6);
    assert_true(pages >= 1);
    for (p = strstr(bbox, "<page "); p != NULL; p = q) {
        q = strstr(p + 1, "<page ");
        k++;
        check_page_words(pdf, k, p, q != NULL ? q : p + strlen(p), w);
    }
    assert_int_equal(k, pages);
    /* the footer of page k says "page k" */
    k = 0;
    for (p = layout; *p != '\0'; p = q + (*q == '\f')) {
        char want[32];
        q = p + strcspn(p, "\f");
        if (q == p && *q == '\0')
            break;
        k++;
        snprintf(want, sizeof want, "page %d\n", k);
        {
            char *page = strndup(p, (size_t)(q - p));
            assert_non_null(page);
            if (strstr(page, want) == NULL)
                fail_msg("%s: page %d has no footer '%s'", pdf, k, "page N");
            free(page);
        }
        if (*q == '\0')
            break;
    }
    assert_int_equal(k, pages);
    assert_int_equal(rendered_pages(pdf), pages);
    /* every font embedded, subset, with a ToUnicode map */
    p = strstr(fonts, "----");
    assert_non_null(p);
    for (p = strchr(p, '\n'); p != NULL && p[1] != '\0'; p = strchr(p + 1, '\n')) {
        size_t len = strcspn(p + 1, "\n");
        char *line = strndup(p + 1, len);
        assert_non_null(line);
        if (strstr(line, " yes yes yes ") == NULL)
            fail_msg("%s: a font not embedded with a ToUnicode map: %s", pdf, line);
        nfonts++;
        free(line);
    }
    assert_true(nfonts >= 2);
    free(w);
    free(info);
    free(bbox);
    free(layout);
    free(fonts);
    return pages;
}

/* Every sample's report. */
static void test_every_sample_report(void **state)
{
    char *dir = ac_test_mkdtemp("pages"), src[1200];
    DIR *d;
    struct dirent *e;
    size_t done = 0;
    (void)state;
    if (!have_poppler()) {
        ac_test_rmdir(dir);
        skip();
    }
    snprintf(src, sizeof src, "%s/samples", AC_SOURCE_DIR);
    d = opendir(src);
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        char xml[600], pdf[1200];
        ac_test_run r;
        if (len < 5 || strcmp(e->d_name + len - 4, ".xml") != 0)
            continue;
        snprintf(xml, sizeof xml, "samples/%s", e->d_name);
        snprintf(pdf, sizeof pdf, "%s/%s.pdf", dir, e->d_name);
        r = run_ac("check", "-q", "--no-search", "--report", pdf, xml, NULL); /* minutes else */
        if (r.status != 0 && r.status != 1 && r.status != 3)
            fail_msg("check %s: exit %d\n%s", xml, r.status, r.err);
        ac_test_run_free(&r);
        /* a title page, then at least one page of the file */
        assert_true(check_pdf(pdf) >= 2);
        unlink(pdf);
        done++;
    }
    closedir(d);
    assert_true(done >= 10);
    ac_test_rmdir(dir);
}

/* ---- the comparison table ---- */

/* web-tier.xml with five mitigations: six variants; the db binds the headroom of the
 * variants that leave it alone at 0.85 / rho_db, rho_db = 0.3 x 1300 / (8 x 80) = 0.609375. */
static const char six_xml[] =
    "<architecture name=\"six\" format=\"1\">\n"
    "  <workload><source id=\"shoppers\" to=\"web\" rate=\"1300/s\"/></workload>\n"
    "  <pool id=\"web\" servers=\"100\" service-time=\"50ms\" dispatch=\"power-of-d\" d=\"2\" "
    "buffer=\"32\"/>\n"
    "  <pool id=\"db\" servers=\"8\" service-rate=\"80/s\" dispatch=\"jsq\"/>\n"
    "  <route from=\"web\" to=\"db\" p=\"0.3\"/>\n"
    "  <link id=\"web-db\" from=\"web\" to=\"db\" capacity=\"2000/s\" latency=\"1ms\"/>\n"
    "  <mitigation id=\"more-web\" kind=\"add-servers\" target=\"web\" amount=\"20\"/>\n"
    "  <mitigation id=\"more-db-replicas\" kind=\"add-servers\" target=\"db\" amount=\"2\"/>\n"
    "  <mitigation id=\"many-more-web-servers\" kind=\"add-servers\" target=\"web\" "
    "amount=\"60\"/>\n"
    "  <mitigation id=\"db-plus-one\" kind=\"add-servers\" target=\"db\" amount=\"1\"/>\n"
    "  <mitigation id=\"a-rather-long-mitigation-name\" kind=\"add-servers\" target=\"db\" "
    "amount=\"4\"/>\n"
    "  <requirements>\n"
    "    <latency percentile=\"95\" max=\"300ms\"/>\n"
    "    <utilization max=\"0.85\"/>\n"
    "    <headroom min=\"1.2\"/>\n"
    "  </requirements>\n"
    "</architecture>\n";

/* s without spaces, with "µ" as "u" (the text form's unit). */
static void squeeze(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && s[i] != '\0' && k + 1 < cap; i++) {
        if (s[i] == ' ')
            continue;
        if ((unsigned char)s[i] == 0xC2 && (unsigned char)s[i + 1] == 0xB5) {
            out[k++] = 'u';
            i++;
            continue;
        }
        out[k++] = s[i];
    }
    out[k] = '\0';
}

/* The text form's table: variant ids with their column offsets, and its KPI rows. */
typedef struct text_table {
    char ids[MAX_IDS][64];
    size_t col[MAX_IDS + 1]; /* the offset of each column; col[n] = end */
    size_t n;
} text_table;

static void parse_header(const char *text, text_table *out)
{
    const char *line = text + strcspn(text, "\n") + 2, *p = line; /* past the title and blank */
    size_t end = strcspn(line, "\n");
    memset(out, 0, sizeof *out);
    while ((size_t)(p - line) < end && out->n < MAX_IDS) {
        size_t k;
        while (*p == ' ')
            p++;
        if ((size_t)(p - line) >= end)
            break;
        k = strcspn(p, " \n");
        out->col[out->n] = (size_t)(p - line);
        snprintf(out->ids[out->n], sizeof out->ids[0], "%.*s", (int)k, p);
        out->n++;
        p += k;
    }
    out->col[out->n] = (size_t)-1;
}

/* In the PDF's layout text, the lines of table headers and of the row `name` with the cells
 * `cells` (squeezed, one per variant): every header line is "Check or quantity" and whole
 * variant ids in order, starting with the reference; the row stands on one line per table
 * with its cells in order (the name may wrap). Returns how many tables hold the row. */
static size_t find_row(const char *layout, const text_table *t, const char *name, char cells[][96])
{
    char sname[256], sline[1200];
    size_t found = 0, cols[MAX_IDS], ncols = 0;
    squeeze(name, strlen(name), sname, sizeof sname);
    for (const char *p = layout; *p != '\0'; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
        size_t len = strcspn(p, "\n"), k;
        squeeze(p, len, sline, sizeof sline);
        if (strncmp(sline, "Checkorquantity", 15) == 0) {
            const char *s = sline + 15;
            ncols = 0;
            while (*s != '\0') {
                size_t best = MAX_IDS, blen = 0;
                for (size_t v = 0; v < t->n; v++) { /* the longest id that starts here */
                    size_t l = strlen(t->ids[v]);
                    if (strncmp(s, t->ids[v], l) == 0 && l > blen) {
                        best = v;
                        blen = l;
                    }
                }
                if (best == MAX_IDS)
                    fail_msg("header '%.*s': not whole variant ids", (int)len, p);
                cols[ncols++] = best;
                s += blen;
            }
            assert_true(ncols >= 2);
            assert_int_equal(cols[0], 0);
            continue;
        }
        if (ncols == 0)
            continue;
        /* sline = a prefix of the name (at least half of it), then the cells in order */
        {
            char want[1200] = "";
            size_t wl;
            for (size_t i = 0; i < ncols; i++)
                strncat(want, cells[cols[i]], sizeof want - strlen(want) - 1);
            wl = strlen(want);
            k = strlen(sline);
            if (k <= wl || strcmp(sline + k - wl, want) != 0)
                continue;
            k -= wl;
            if (2 * k >= strlen(sname) && strncmp(sline, sname, k) == 0)
                found++;
        }
    }
    return found;
}

/* Compare `xml` (dir/name or a sample): the PDF's table against the text form. */
static void check_compare(const char *xml, const char *pdf, size_t want_ids_first)
{
    ac_test_run r = run_ac("compare", "--report", pdf, xml, NULL), tr;
    char *layout;
    text_table t;
    size_t rows = 0;
    if (r.status != 0 && r.status != 1 && r.status != 3)
        fail_msg("compare %s: exit %d\n%s", xml, r.status, r.err);
    ac_test_run_free(&r);
    assert_true(check_pdf(pdf) >= 2);
    layout = ac_test_poppler("pdftotext -layout", pdf, 1);
    assert_non_null(layout);
    tr = run_ac("compare", xml, NULL);
    parse_header(tr.out, &t);
    assert_true(t.n >= 2);
    /* the first table holds the first want_ids_first variants on one header line */
    {
        char head[1200] = "Check or quantity", got[1200], want[1200];
        const char *h = strstr(layout, "Check or quantity");
        assert_non_null(h);
        for (size_t v = 0; v < want_ids_first; v++) {
            strncat(head, " ", sizeof head - strlen(head) - 1);
            strncat(head, t.ids[v], sizeof head - strlen(head) - 1);
        }
        squeeze(h, strcspn(h, "\n"), got, sizeof got);
        squeeze(head, strlen(head), want, sizeof want);
        assert_string_equal(got, want);
    }
    /* every KPI row (no status: the block after the checks) of the text form */
    for (const char *line = strstr(tr.out, "\n\n'"); line != NULL && line[1] == '\n';) {
        size_t len;
        char name[256], cells[MAX_IDS][96];
        line += 2;
        len = strcspn(line, "\n");
        if (len == 0)
            break;
        snprintf(name, sizeof name, "%.*s", (int)(t.col[0] < len ? t.col[0] : len), line);
        for (size_t v = 0; v < t.n; v++) {
            size_t a = t.col[v] < len ? t.col[v] : len;
            size_t b = t.col[v + 1] < len ? t.col[v + 1] : len;
            squeeze(line + a, b - a, cells[v], sizeof cells[v]);
        }
        while (strlen(name) > 0 && name[strlen(name) - 1] == ' ')
            name[strlen(name) - 1] = '\0';
        if (find_row(layout, &t, name, cells) == 0)
            fail_msg("%s: row '%s' is not on one line of the PDF", xml, name);
        rows++;
        line += len - 1; /* line[1] is the "\n" before the next row */
    }
    assert_true(rows >= 5);
    free(layout);
    ac_test_run_free(&tr);
}

/* The JSON cell of `variant` in the row at `row`: its text up to its closing brace. */
static char *json_cell(const char *row, const char *variant)
{
    char key[128];
    const char *p;
    snprintf(key, sizeof key, "\"variant\": \"%s\"", variant);
    p = strstr(row, key);
    assert_non_null(p);
    p = strndup(p, strcspn(p, "}"));
    assert_non_null(p);
    return (char *)(uintptr_t)p;
}

static int cell_is_best(const char *row, const char *variant)
{
    char *c = json_cell(row, variant);
    int best = strstr(c, "\"best\": true") != NULL;
    free(c);
    return best;
}

static double cell_value(const char *row, const char *variant)
{
    char *c = json_cell(row, variant);
    const char *v = strstr(c, "\"value\": ");
    double x;
    assert_non_null(v);
    x = strtod(v + 9, NULL);
    free(c);
    return x;
}

static void test_compare_tables(void **state)
{
    char *dir = ac_test_mkdtemp("cmptable"), *xml, pdf[1200];
    ac_test_run r;
    const char *row;
    (void)state;
    if (!have_poppler()) {
        ac_test_rmdir(dir);
        skip();
    }
    xml = ac_test_write_file(dir, "six.xml", six_xml, strlen(six_xml));
    snprintf(pdf, sizeof pdf, "%s/six.pdf", dir);
    /* five variants fit one table; the sixth goes to a second with the reference */
    check_compare(xml, pdf, 5);
    unlink(pdf);
    /* best marks: more-web and many-more-web-servers tie at the best headroom, 0.85 / rho_db */
    r = run_ac("compare", "--format", "json", xml, NULL);
    row = strstr(r.out, "\"name\": \"headroom factor\"");
    assert_non_null(row);
    assert_null(strstr(row, "\"best\": \"")); /* a tie: no single best variant */
    assert_true(cell_is_best(row, "more-web"));
    assert_true(cell_is_best(row, "many-more-web-servers"));
    assert_false(cell_is_best(row, "baseline"));
    assert_false(cell_is_best(row, "db-plus-one"));
    assert_double_close(cell_value(row, "more-web"), 0.85 / 0.609375, 0.0, 1e-3);
    assert_double_close(cell_value(row, "baseline"), 0.85 / 0.65, 0.0, 1e-3);
    ac_test_run_free(&r);
    snprintf(pdf, sizeof pdf, "%s/retry.pdf", dir);
    check_compare("samples/retry-storm.xml", pdf, 3);
    unlink(pdf);
    unlink(xml);
    free(xml);
    ac_test_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_tables),
        cmocka_unit_test(test_every_sample_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
