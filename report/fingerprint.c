/*
 * Stable identities of findings across commits: the message's fingerprint (numbers masked)
 * and the SARIF artifact URIs (relative to a root, percent-encoded).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "archcheck/report.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sha256.h"
#include "common/strbuf.h"

void ac_report_fingerprint(const char *message, char out[17])
{
    ac_strbuf sb = {0};
    char hex[65];
    const char *p = message;
    while (*p != '\0') {
        if (isdigit((unsigned char)*p) ||
            ((*p == '.' || *p == '-' || *p == '+') && isdigit((unsigned char)p[1]))) {
            /* a number: digits, a point, an exponent */
            while (isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' ||
                   ((*p == 'e' || *p == 'E') &&
                    (isdigit((unsigned char)p[1]) || p[1] == '-' || p[1] == '+')))
                p++;
            ac_strbuf_append(&sb, "#");
        } else {
            ac_strbuf_appendn(&sb, p, 1);
            p++;
        }
    }
    ac_sha256_hex(sb.data != NULL ? sb.data : "", sb.len, hex);
    ac_strbuf_free(&sb);
    memcpy(out, hex, 16);
    out[16] = '\0';
}

/* Append `s` percent-encoded (RFC 3986: unreserved characters and '/' kept), or as it is
 * (`raw`). */
static void path_append(ac_strbuf *sb, const char *s, int raw)
{
    if (raw) {
        ac_strbuf_append(sb, s);
        return;
    }
    static const char hexd[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (isalnum(*p) || *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/') {
            char c = (char)*p;
            ac_strbuf_appendn(sb, &c, 1);
        } else {
            char e[3] = {'%', hexd[*p >> 4], hexd[*p & 15]};
            ac_strbuf_appendn(sb, e, 3);
        }
    }
}

char *ac_report_root_uri(const char *root)
{
    char abs[PATH_MAX];
    ac_strbuf sb = {0};
    if (root == NULL ? getcwd(abs, sizeof abs) == NULL : realpath(root, abs) == NULL)
        return NULL;
    ac_strbuf_append(&sb, "file://");
    path_append(&sb, abs, 0);
    if (sb.len == 0 || sb.data[sb.len - 1] != '/')
        ac_strbuf_append(&sb, "/");
    return sb.data;
}

/* The path of `file` relative to the directory `root_abs` (both absolute, canonical), or
 * NULL when it is not under it. */
static const char *under(const char *file_abs, const char *root_abs)
{
    size_t n = strlen(root_abs);
    if (n == 1 && root_abs[0] == '/')
        return file_abs + 1;
    if (strncmp(file_abs, root_abs, n) == 0 && file_abs[n] == '/')
        return file_abs + n + 1;
    return NULL;
}

static char *artifact(const char *file, const char *root, int *relative, int raw)
{
    char fabs[PATH_MAX], rabs[PATH_MAX];
    const char *rel;
    ac_strbuf sb = {0};
    *relative = 1;
    if (root == NULL ? getcwd(rabs, sizeof rabs) == NULL : realpath(root, rabs) == NULL)
        rabs[0] = '\0';
    if (rabs[0] != '\0' && realpath(file, fabs) != NULL) {
        rel = under(fabs, rabs);
        if (rel != NULL) {
            path_append(&sb, rel, raw);
        } else { /* outside the root: an absolute URI */
            *relative = 0;
            if (!raw)
                ac_strbuf_append(&sb, "file://");
            path_append(&sb, fabs, raw);
        }
    } else { /* not a file that exists (AC001): the path as given */
        while (file[0] == '.' && file[1] == '/')
            file += 2;
        *relative = file[0] != '/';
        if (!*relative && !raw)
            ac_strbuf_append(&sb, "file://");
        path_append(&sb, file, raw);
    }
    if (sb.data == NULL)
        ac_strbuf_append(&sb, "");
    return sb.data;
}

char *ac_report_artifact_uri(const char *file, const char *root, int *relative)
{
    return artifact(file, root, relative, 0);
}

char *ac_report_artifact_path(const char *file, const char *root)
{
    int relative;
    return artifact(file, root, &relative, 1);
}

int ac_report_finding_fingerprint(const ac_diag *d, const char *root, char out[33])
{
    int relative = 1;
    char msg[17], hex[65];
    char *uri = ac_report_artifact_uri(d->file, root, &relative);
    ac_strbuf sb = {0};
    ac_report_fingerprint(d->message, msg);
    ac_strbuf_printf(&sb, "%s\n%s\n%s\n%s", uri != NULL ? uri : d->file, d->rule,
                     d->node != NULL ? d->node : "", msg);
    ac_sha256_hex(sb.data != NULL ? sb.data : "", sb.len, hex);
    memcpy(out, hex, 32);
    out[32] = '\0';
    ac_strbuf_free(&sb);
    free(uri);
    return uri != NULL ? AC_OK : AC_ENOMEM;
}
