/*
 * The project file, .archcheck.toml, found upward from the working directory: the same
 * options as the command line, for every run in the project. A small subset of TOML:
 *
 *   # comment
 *   fail-on = "warning"          # a string: --fail-on=warning
 *   exclude = ["AC901", "AC033"] # an array: one option per element
 *   architectures-only = true    # true: the flag; false: nothing
 *   [check]                      # keys below apply to that command only
 *   format = "sarif"
 *
 * Top-level keys apply to every command that has the option. The options come before the
 * command line's, so the command line wins (lists such as --exclude add up).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#define CONFIG_NAME     ".archcheck.toml"
#define CONFIG_MAX_ARGS 256

/* The keys a project file may set: the options of check and lint that make sense for a
 * whole project (not the input files, not -o). */
static const char *const config_keys[] = {
    "format", "fail-on", "select",   "exclude",     "baseline",           "sarif-root",
    "color",  "seed",    "validate", "no-validate", "architectures-only", "quiet",
    "verbose"};

#define NKEYS (sizeof config_keys / sizeof config_keys[0])

/* The nearest .archcheck.toml from the working directory up to /, into path. */
static int find_config(char *path, size_t size)
{
    char dir[PATH_MAX];
    if (getcwd(dir, sizeof dir) == NULL)
        return 0;
    for (;;) {
        char *slash;
        snprintf(path, size, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", CONFIG_NAME);
        if (access(path, R_OK) == 0)
            return 1;
        slash = strrchr(dir, '/');
        if (slash == NULL || strcmp(dir, "/") == 0)
            return 0;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

static char *trim(char *s)
{
    char *e;
    while (*s == ' ' || *s == '\t')
        s++;
    e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        *--e = '\0';
    return s;
}

static int has_option(const struct option *opts, const char *name, int *arg)
{
    for (size_t i = 0; opts[i].name != NULL; i++)
        if (strcmp(opts[i].name, name) == 0) {
            *arg = opts[i].has_arg;
            return 1;
        }
    return 0;
}

typedef struct cfg {
    const char *path;
    unsigned line;
    char *argv[CONFIG_MAX_ARGS];
    int argc;
} cfg;

static int cfg_error(const cfg *c, const char *msg, const char *what)
{
    fprintf(stderr, "%s:%u: error: %s%s\n", c->path, c->line, msg, what != NULL ? what : "");
    return AC_EXIT_USAGE;
}

static int cfg_push(cfg *c, const char *key, const char *value)
{
    size_t n = strlen(key) + (value != NULL ? strlen(value) : 0) + 4;
    char *s;
    if (c->argc >= CONFIG_MAX_ARGS)
        return cfg_error(c, "too many options", NULL);
    s = malloc(n);
    if (s == NULL)
        return ac_cli_fail("out of memory");
    if (value != NULL)
        snprintf(s, n, "--%s=%s", key, value);
    else
        snprintf(s, n, "--%s", key);
    c->argv[c->argc++] = s;
    return 0;
}

/* One string value: "..." (no escapes but \" and \\). Returns the end after it, or NULL. */
static char *string_value(char *p, char **out)
{
    char *w;
    if (*p != '"')
        return NULL;
    *out = w = ++p;
    while (*p != '\0' && *p != '"') {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        *w++ = *p++;
    }
    if (*p != '"')
        return NULL;
    *w = '\0';
    return p + 1;
}

/* key = value, for the option `key` of this command (has_arg: its kind). */
static int cfg_value(cfg *c, const char *key, int has_arg, char *v)
{
    char *s;
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        if (has_arg != no_argument)
            return cfg_error(c, "this key takes a value, not true/false: ", key);
        return strcmp(v, "true") == 0 ? cfg_push(c, key, NULL) : 0;
    }
    if (has_arg == no_argument)
        return cfg_error(c, "this key takes true or false: ", key);
    if (*v == '[') { /* ["a", "b"] */
        v = trim(v + 1);
        while (*v != ']') {
            char *end = string_value(v, &s);
            if (end == NULL)
                return cfg_error(c, "an array of strings expected for ", key);
            end = trim(end);
            if (cfg_push(c, key, s) != 0)
                return AC_EXIT_USAGE;
            if (*end == ',')
                end = trim(end + 1);
            else if (*end != ']')
                return cfg_error(c, "',' or ']' expected in the array of ", key);
            v = end;
        }
        return 0;
    }
    if (*v == '"') {
        char *end = string_value(v, &s);
        if (end == NULL || *trim(end) != '\0')
            return cfg_error(c, "a quoted string expected for ", key);
        return cfg_push(c, key, s);
    }
    for (s = v; *s >= '0' && *s <= '9'; s++) /* a whole number (seed) */
        ;
    if (s == v || *s != '\0')
        return cfg_error(c, "a quoted string, a number, true or false expected for ", key);
    return cfg_push(c, key, v);
}

/* One line: a section, a key, a comment or nothing. */
static int cfg_line(cfg *c, const char *command, const struct option *opts, char *line,
                    const char **section)
{
    static char sect[32];
    char *eq, *key, *val, *hash;
    int has_arg = 0;
    const char *near;
    line = trim(line);
    if (*line == '\0' || *line == '#')
        return 0;
    if (*line == '[') {
        char *close = strchr(line, ']');
        if (close == NULL || close - line - 1 >= (long)sizeof sect)
            return cfg_error(c, "a section is [check] or [lint]", NULL);
        memcpy(sect, line + 1, (size_t)(close - line - 1));
        sect[close - line - 1] = '\0';
        *section = sect;
        return 0;
    }
    eq = strchr(line, '=');
    if (eq == NULL)
        return cfg_error(c, "key = value expected", NULL);
    *eq = '\0';
    key = trim(line);
    val = trim(eq + 1);
    hash = strstr(val, " #"); /* a comment after the value (not inside a string: rare) */
    if (hash != NULL && strchr(hash, '"') == NULL)
        *hash = '\0';
    val = trim(val);
    if (!ac_cli_known_word(key, config_keys, NKEYS, &near))
        return near != NULL ? (fprintf(stderr,
                                       "%s:%u: error: unknown key '%s'; did you mean "
                                       "'%s'?\n",
                                       c->path, c->line, key, near),
                               AC_EXIT_USAGE)
                            : cfg_error(c, "unknown key ", key);
    if (*section != NULL && strcmp(*section, command) != 0)
        return 0; /* another command's section */
    if (!has_option(opts, key, &has_arg))
        return 0; /* an option this command does not have (lint has no --fail-on) */
    return cfg_value(c, key, has_arg, val);
}

int ac_cli_config_args(const char *command, const struct option *opts, int *argc, char ***argv,
                       char ***owned)
{
    char path[PATH_MAX + 32], line[4096];
    const char *section = NULL;
    cfg c;
    FILE *fp;
    int rc = 0;
    char **v;
    *owned = NULL;
    for (int i = 1; i < *argc; i++)
        if (strcmp((*argv)[i], "--no-config") == 0)
            return 0;
    if (!find_config(path, sizeof path))
        return 0;
    memset(&c, 0, sizeof c);
    c.path = path;
    fp = fopen(path, "r");
    if (fp == NULL)
        return ac_cli_fail("cannot read %s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof line, fp) != NULL) {
        c.line++;
        rc = cfg_line(&c, command, opts, line, &section);
    }
    fclose(fp);
    v = rc == 0 ? calloc((size_t)(*argc + c.argc + 2), sizeof *v) : NULL;
    if (v == NULL) {
        if (rc == 0)
            ac_cli_fail("out of memory");
        for (int i = 0; i < c.argc; i++)
            free(c.argv[i]);
        return AC_EXIT_USAGE;
    }
    v[0] = (*argv)[0]; /* the command, then the project's options, then the command line's */
    for (int i = 0; i < c.argc; i++)
        v[1 + i] = c.argv[i];
    for (int i = 1; i < *argc; i++)
        v[c.argc + i] = (*argv)[i];
    *argc += c.argc;
    *argv = v;
    *owned = v;
    v[*argc] = NULL;
    return 0;
}

void ac_cli_config_free(char **owned, int argc, int original_argc)
{
    if (owned == NULL)
        return;
    for (int i = 1; i <= argc - original_argc; i++)
        free(owned[i]);
    free(owned);
}
