/*
 * The parser's entry points: read, parse, validate, build, check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "archcheck/parser.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "parser/internal.h"
#include "parser/units.h"

void ac_pdiag(ac_pctx *ctx, ac_loc loc, const char *node, const char *rule, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    va_start(ap, fmt);
    msg = ac_vstrdupf(fmt, ap);
    va_end(ap);
    if (msg == NULL || ac_diag_add(ctx->diags, rule, loc.file != NULL ? loc.file : ctx->file,
                                   loc.line, loc.column, node, "%s", msg) != AC_OK)
        ctx->oom = 1;
    free(msg);
}

static void silent_error(void *user, xmlErrorPtr e)
{
    (void)user;
    (void)e;
}

static void ctx_free(ac_pctx *ctx)
{
    for (size_t i = 0; i < ctx->nrefs; i++)
        free(ctx->refs[i].id);
    free(ctx->refs);
    free(ctx->line_starts);
    free(ctx->tag_offsets);
    free(ctx->dup_nodes);
}

/* One mistake, one diagnostic: a misspelt attribute (AC004 "not allowed here") also leaves
 * its element without the attribute it meant (AC018 "needs exactly one of ..."): the
 * AC018 on the same line is dropped. */
static void drop_knock_ons(ac_diag_list *diags, const char *file)
{
    for (size_t i = 0; i < diags->count;) {
        const ac_diag *d = &diags->items[i];
        int knock_on = 0;
        if (strcmp(d->rule, "AC018") == 0 && d->file != NULL && strcmp(d->file, file) == 0)
            for (size_t k = 0; k < diags->count && !knock_on; k++) {
                const ac_diag *e = &diags->items[k];
                knock_on = strcmp(e->rule, "AC004") == 0 && e->line == d->line &&
                           strstr(e->message, "is not allowed here") != NULL;
            }
        if (knock_on)
            ac_diag_list_remove(diags, i);
        else
            i++;
    }
}

int ac_parser_parse_memory(const char *buf, size_t len, const char *name, ac_model **out,
                           ac_diag_list *diags, ac_error *err)
{
    ac_pctx ctx;
    xmlDocPtr doc = NULL;
    ac_model *m = NULL;
    size_t errors_before = ac_diag_list_count(diags, AC_SEV_ERROR);
    int rc = AC_OK;

    *out = NULL;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = name != NULL ? name : "-";
    ctx.buf = buf;
    ctx.len = len;
    ctx.diags = diags;
    if (len > AC_PARSER_MAX_BYTES) {
        ac_loc none = {ctx.file, 1, 1};
        ac_pdiag(&ctx, none, NULL, "AC005",
                 "the file is %zu bytes; the limit is %zu bytes (16 MiB)", len,
                 AC_PARSER_MAX_BYTES);
        rc = AC_EINPUT;
        goto cleanup;
    }
    m = calloc(1, sizeof *m);
    if (m == NULL || (m->file = ac_strdup(ctx.file)) == NULL) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory reading %s", ctx.file);
        goto cleanup;
    }
    m->faults.tau = 0.7;
    ctx.model = m;
    xmlSetStructuredErrorFunc(NULL, silent_error);
    doc = ac_xml_read(&ctx);
    if (doc != NULL) {
        ac_xml_validate(&ctx, doc);
        if (ac_build_model(&ctx, doc) == AC_OK && !ctx.oom)
            ac_check_model(&ctx);
    }
    xmlSetStructuredErrorFunc(NULL, NULL);
    if (ctx.oom) {
        rc = ac_error_set(err, AC_ENOMEM, "out of memory reading %s", ctx.file);
        goto cleanup;
    }
    ac_diag_list_sort(diags);
    drop_knock_ons(diags, ctx.file);
    if (doc == NULL || ac_diag_list_count(diags, AC_SEV_ERROR) > errors_before) {
        rc = AC_EINPUT;
        goto cleanup;
    }
    *out = m;
    m = NULL;
cleanup:
    if (doc != NULL)
        xmlFreeDoc(doc);
    ac_model_free(m);
    ctx_free(&ctx);
    return rc;
}

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

int ac_parser_parse_file(const char *path, ac_model **out, ac_diag_list *diags, ac_error *err)
{
    char hex[65];
    return ac_parser_parse_file_digest(path, hex, out, diags, err);
}

int ac_parser_parse_file_digest(const char *path, char sha256_hex[65], ac_model **out,
                                ac_diag_list *diags, ac_error *err)
{
    struct stat st;
    char *buf = NULL;
    size_t len = 0;
    int fd = -1, rc;
    ac_loc none = {path, 0, 0};

    *out = NULL;
    sha256_hex[0] = '\0';
    /* O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever; what is not a
     * regular file is refused below, before any read */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        rc = ac_diag_add(diags, "AC001", path, 1, 1, NULL, "cannot read '%s': %s", path,
                         strerror(errno));
        rc = rc == AC_OK ? AC_EINPUT : ac_error_set(err, rc, "out of memory");
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = ac_diag_add(diags, "AC001", path, 1, 1, NULL,
                         "cannot read '%s': it is %s, not a regular file", path,
                         file_kind(st.st_mode));
        rc = rc == AC_OK ? AC_EINPUT : ac_error_set(err, rc, "out of memory");
        goto cleanup;
    }
    if ((size_t)st.st_size > AC_PARSER_MAX_BYTES) {
        rc = ac_diag_add(diags, "AC005", path, 1, 1, NULL,
                         "the file is %lld bytes; the limit is %zu bytes (16 MiB)",
                         (long long)st.st_size, AC_PARSER_MAX_BYTES);
        rc = rc == AC_OK ? AC_EINPUT : ac_error_set(err, rc, "out of memory");
        goto cleanup;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        rc = ac_error_set_at(err, AC_ENOMEM, none, "out of memory reading %s", path);
        goto cleanup;
    }
    for (;;) {
        ssize_t n = read(fd, buf + len, (size_t)st.st_size + 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = ac_diag_add(diags, "AC001", path, 1, 1, NULL, "cannot read '%s': %s", path,
                             strerror(errno));
            rc = rc == AC_OK ? AC_EINPUT : ac_error_set(err, rc, "out of memory");
            goto cleanup;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > (size_t)st.st_size) { /* the file grew while we read it */
            rc = ac_diag_add(diags, "AC001", path, 1, 1, NULL,
                             "cannot read '%s': it changed while being read", path);
            rc = rc == AC_OK ? AC_EINPUT : ac_error_set(err, rc, "out of memory");
            goto cleanup;
        }
    }
    ac_sha256_hex(buf, len, sha256_hex);
    rc = ac_parser_parse_memory(buf, len, path, out, diags, err);
cleanup:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

int ac_parser_quantity(const char *text, ac_quantity kind, double *out, char *msg, size_t size)
{
    ac_unit_fail fail = {NULL, ""};
    int rc;
    switch (kind) {
    case AC_QUANTITY_DURATION: rc = ac_units_duration(text, out, &fail); break;
    case AC_QUANTITY_RATE: rc = ac_units_rate(text, out, &fail); break;
    case AC_QUANTITY_PROBABILITY: rc = ac_units_probability(text, out, &fail); break;
    default:
        rc = -1;
        snprintf(fail.message, sizeof fail.message, "has an unknown kind");
        break;
    }
    if (rc != 0 && msg != NULL)
        snprintf(msg, size, "%s", fail.message);
    return rc;
}
