/*
 * The input files of check and lint as linters take them: `-` is the standard input, a
 * directory is searched (iteratively, sorted, hidden entries skipped) for architecture files,
 * the .xml files whose root element is <architecture>.
 */
#define _XOPEN_SOURCE 700 /* d_type-free readdir, lstat */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "archcheck/parser.h"
#include "cli/cli.h"
#include "common/sha256.h"

#define MAX_FILES   100000u
#define SNIFF_BYTES 65536u

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Skip what may come before the root element: a BOM, blanks, <?...?>, <!--...-->, <!...>. */
static const char *skip_prolog(const char *p, const char *end)
{
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    for (;;) {
        const char *q;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (end - p >= 4 && memcmp(p, "<!--", 4) == 0) {
            q = p + 4;
            while (q + 3 <= end && memcmp(q, "-->", 3) != 0)
                q++;
            if (q + 3 > end)
                return end;
            p = q + 3;
        } else if (end - p >= 2 && (memcmp(p, "<?", 2) == 0 || memcmp(p, "<!", 2) == 0)) {
            q = memchr(p, '>', (size_t)(end - p));
            if (q == NULL)
                return end;
            p = q + 1;
        } else {
            return p;
        }
    }
}

int ac_cli_is_architecture(const char *path)
{
    char buf[SNIFF_BYTES];
    size_t n;
    const char *p;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return 0;
    n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    p = skip_prolog(buf, buf + n);
    if ((size_t)(buf + n - p) < 14 || memcmp(p, "<architecture", 13) != 0)
        return 0;
    p += 13;
    return *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '>' || *p == '/';
}

static int push(ac_cli_paths *l, char *s)
{
    if (s == NULL)
        return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (v == NULL) {
            free(s);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s == NULL)
        return NULL;
    memcpy(s, dir, a);
    if (a == 0 || dir[a - 1] != '/')
        s[a++] = '/';
    memcpy(s + a, name, b + 1);
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The architecture files under `root`, sorted: a work list of directories (no recursion),
 * symbolic links not followed, hidden entries (".git") skipped. */
static int search_dir(const char *root, ac_cli_paths *out)
{
    ac_cli_paths todo = {0};
    size_t first = out->n;
    int rc = push(&todo, strdup(root));
    while (rc == 0 && todo.n > 0) {
        char *dir = todo.v[--todo.n];
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d != NULL && rc == 0 && (e = readdir(d)) != NULL) {
            struct stat st;
            char *p;
            if (e->d_name[0] == '.')
                continue;
            p = join(dir, e->d_name);
            if (p == NULL || lstat(p, &st) != 0) {
                free(p);
                rc = p == NULL ? -1 : 0;
                continue;
            }
            if (S_ISDIR(st.st_mode))
                rc = push(&todo, p);
            else if (S_ISREG(st.st_mode) && ends_with(p, ".xml") && ac_cli_is_architecture(p))
                rc = out->n - first >= MAX_FILES ? -2 : push(out, p);
            else
                free(p);
        }
        if (d != NULL)
            closedir(d);
        free(dir);
    }
    for (size_t i = 0; i < todo.n; i++)
        free(todo.v[i]);
    free(todo.v);
    if (out->n > first) /* qsort's base must not be NULL, even for no element */
        qsort(out->v + first, out->n - first, sizeof *out->v, cmp_str);
    return rc;
}

int ac_cli_paths_expand(char **args, size_t n, int arch_only, ac_cli_paths *out)
{
    memset(out, 0, sizeof *out);
    /* stat() follows a link to a directory: a named directory is searched, links inside not */
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        int rc = 0;
        if (strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            size_t before = out->n;
            rc = search_dir(args[i], out);
            if (rc == 0 && out->n == before) {
                fprintf(stderr,
                        "archcheck: %s: no architecture file (an .xml file whose root "
                        "element is <architecture>) in this directory\n",
                        args[i]);
                out->empty_dir = 1;
            }
        } else if (arch_only && strcmp(args[i], "-") != 0 && stat(args[i], &st) == 0 &&
                   S_ISREG(st.st_mode) && !ac_cli_is_architecture(args[i])) {
            out->skipped++; /* --architectures-only: a pom.xml is not ours */
            continue;
        } else {
            rc = push(out, strdup(args[i]));
        }
        if (rc != 0) {
            ac_cli_paths_free(out);
            return ac_cli_fail(rc == -2 ? "more than %u architecture files" : "out of memory",
                               MAX_FILES);
        }
    }
    return 0;
}

void ac_cli_paths_free(ac_cli_paths *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Read the standard input (at most AC_PARSER_MAX_BYTES + 1 bytes: the parser says when it is
 * too large) and parse it as "<stdin>". */
int ac_cli_parse_stdin(char sha256_hex[65], ac_model **model, ac_diag_list *diags, ac_error *err)
{
    size_t cap = 65536, len = 0, k;
    char *buf = malloc(cap);
    int rc;
    if (buf == NULL)
        return ac_error_set(err, AC_ENOMEM, "out of memory");
    while ((k = fread(buf + len, 1, cap - len, stdin)) > 0) {
        len += k;
        if (len > AC_PARSER_MAX_BYTES)
            break;
        if (len == cap) {
            char *b2 = realloc(buf, cap * 2);
            if (b2 == NULL) {
                free(buf);
                return ac_error_set(err, AC_ENOMEM, "out of memory");
            }
            buf = b2;
            cap *= 2;
        }
    }
    ac_sha256_hex(buf, len, sha256_hex);
    rc = ac_parser_parse_memory(buf, len, "<stdin>", model, diags, err);
    free(buf);
    return rc;
}
