/*
 * tests/cli_helpers.h: helpers shared by the end-to-end tests of the archcheck binary
 * (test_cli.c, test_cli_commands.c, test_cli_hostile.c, test_cli_analysis.c): string and
 * file helpers, directory listings, temporary files and a strict JSON syntax checker
 * (header-only, every function static inline). Include after helpers.h.
 */
#ifndef AC_TESTS_CLI_HELPERS_H
#define AC_TESTS_CLI_HELPERS_H

#include <dirent.h>
#include <errno.h>

/* ---- small string and file helpers ---- */

static inline int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

#define path_join(a, b) ac_test_path_join((a), (b)) /* helpers.h */

static inline int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct name_list {
    char **names;
    size_t count;
} name_list;

/* The entries of dir (relative to AC_SOURCE_DIR if not absolute) whose names end in
 * `suffix` (NULL: every entry but . and ..), sorted. */
static inline name_list list_dir(const char *dir, const char *suffix)
{
    name_list l = {NULL, 0};
    size_t cap = 0;
    char *full = dir[0] == '/' ? strdup(dir) : path_join(AC_SOURCE_DIR, dir);
    DIR *d;
    struct dirent *e;
    assert_non_null(full);
    d = opendir(full);
    if (d == NULL)
        fail_msg("cannot open the directory %s: %s", full, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (suffix != NULL && !ends_with(e->d_name, suffix))
            continue;
        if (l.count == cap) {
            char **t;
            cap = cap ? 2 * cap : 32;
            t = realloc(l.names, cap * sizeof *t);
            assert_non_null(t);
            l.names = t;
        }
        l.names[l.count] = strdup(e->d_name);
        assert_non_null(l.names[l.count]);
        l.count++;
    }
    closedir(d);
    free(full);
    if (l.count > 1)
        qsort(l.names, l.count, sizeof *l.names, cmp_names);
    return l;
}

static inline void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

/* A file of the source tree, read whole (NUL-terminated). */
static inline char *read_source_file(const char *rel)
{
    char *full = path_join(AC_SOURCE_DIR, rel);
    char *s = ac_test_read_file(full);
    if (s == NULL)
        fail_msg("cannot read %s", full);
    free(full);
    return s;
}

/* Temporary directories and files: helpers.h */
#define make_tmpdir() ac_test_mkdtemp("cli")
#define remove_tmpdir ac_test_rmdir
#define write_tmp     ac_test_write_file

static inline char *write_tmp_str(const char *dir, const char *name, const char *text)
{
    return write_tmp(dir, name, text, strlen(text));
}

/* ---- a strict JSON syntax checker (RFC 8259), enough to catch broken output ---- */

typedef struct json_in {
    const char *p;
    int depth;
} json_in;

static inline void json_ws(json_in *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
        j->p++;
}

static inline int json_value(json_in *j);

static inline int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int json_string(json_in *j)
{
    if (*j->p != '"')
        return 0;
    j->p++;
    for (;;) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '\0' || c < 0x20)
            return 0;
        if (c == '"') {
            j->p++;
            return 1;
        }
        if (c == '\\') {
            char e = j->p[1];
            if (e == 'u') {
                for (int k = 2; k < 6; k++)
                    if (!is_hex(j->p[k]))
                        return 0;
                j->p += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0')
                return 0;
            j->p += 2;
            continue;
        }
        j->p++;
    }
}

static inline int json_digits(json_in *j)
{
    const char *s = j->p;
    while (*j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s;
}

static inline int json_number(json_in *j)
{
    if (*j->p == '-')
        j->p++;
    if (*j->p == '0')
        j->p++;
    else if (!json_digits(j))
        return 0;
    if (*j->p == '.') {
        j->p++;
        if (!json_digits(j))
            return 0;
    }
    if (*j->p == 'e' || *j->p == 'E') {
        j->p++;
        if (*j->p == '+' || *j->p == '-')
            j->p++;
        if (!json_digits(j))
            return 0;
    }
    return 1;
}

static inline int json_container(json_in *j, char close, int is_object)
{
    j->p++;
    if (++j->depth > 64)
        return 0;
    json_ws(j);
    if (*j->p == close) {
        j->p++;
        j->depth--;
        return 1;
    }
    for (;;) {
        json_ws(j);
        if (is_object) {
            if (!json_string(j))
                return 0;
            json_ws(j);
            if (*j->p != ':')
                return 0;
            j->p++;
        }
        if (!json_value(j))
            return 0;
        json_ws(j);
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p != close)
            return 0;
        j->p++;
        j->depth--;
        return 1;
    }
}

static inline int json_value(json_in *j)
{
    json_ws(j);
    switch (*j->p) {
    case '{': return json_container(j, '}', 1);
    case '[': return json_container(j, ']', 0);
    case '"': return json_string(j);
    case 't': return strncmp(j->p, "true", 4) == 0 ? (j->p += 4, 1) : 0;
    case 'f': return strncmp(j->p, "false", 5) == 0 ? (j->p += 5, 1) : 0;
    case 'n': return strncmp(j->p, "null", 4) == 0 ? (j->p += 4, 1) : 0;
    default: return json_number(j);
    }
}

/* Is `text` exactly one JSON value (surrounded by blanks)? */
static inline int is_json(const char *text)
{
    json_in j = {text, 0};
    if (!json_value(&j))
        return 0;
    json_ws(&j);
    return *j.p == '\0';
}

static inline void assert_json(const char *text, const char *what)
{
    if (!is_json(text))
        fail_msg("%s is not valid JSON:\n%s", what, text);
}
#endif /* AC_TESTS_CLI_HELPERS_H */
