/*
 * Safe reading of the XML document and its validation against the XSD.
 *
 * Hostile input is stopped before libxml2 sees it where possible: the bytes
 * must be UTF-8 text (no NUL, no UTF-16), and a DOCTYPE in the prolog is
 * refused outright, so no entity can be declared at all: neither external
 * entities (file:// or http://) nor entity bombs. libxml2 then parses from
 * memory (no gzip/xz decompression, no file access) with NONET and without
 * NOENT/DTDLOAD/DTDVALID/HUGE, and an entity loader that refuses everything
 * guards whatever remains.
 *
 * Locations: libxml2 gives lines for elements but no columns, so the start
 * tags are found by a scan of the text in document order (the k-th start tag
 * in the text is the k-th element of the tree); attribute positions are found
 * inside their start tag.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

#include "archcheck/parser.h"
#include "common/strbuf.h"
#include "common/suggest.h"
#include "parser/internal.h"

extern const unsigned char ac_parser_schema_xsd[];
extern const size_t ac_parser_schema_xsd_len;

#define AC_NAMESPACE "urn:archcheck:1"

const char *ac_parser_schema(size_t *len)
{
    if (len != NULL)
        *len = ac_parser_schema_xsd_len;
    return (const char *)ac_parser_schema_xsd;
}

static xmlParserInputPtr deny_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
    (void)url;
    (void)id;
    (void)ctxt;
    return NULL;
}

/* Line index: the offset at which each line starts. */
/* A line ends at "\n", "\r\n" or a lone "\r" (as XML normalises them). */
static int is_line_end(const char *buf, size_t len, size_t i)
{
    return buf[i] == '\n' || (buf[i] == '\r' && (i + 1 >= len || buf[i + 1] != '\n'));
}

static int build_line_index(ac_pctx *ctx)
{
    size_t n = 1;
    for (size_t i = 0; i < ctx->len; i++)
        if (is_line_end(ctx->buf, ctx->len, i))
            n++;
    ctx->line_starts = malloc(n * sizeof *ctx->line_starts);
    if (ctx->line_starts == NULL)
        return AC_ENOMEM;
    ctx->line_starts[0] = 0;
    ctx->nlines = 1;
    for (size_t i = 0; i < ctx->len; i++)
        if (is_line_end(ctx->buf, ctx->len, i))
            ctx->line_starts[ctx->nlines++] = i + 1;
    return AC_OK;
}

ac_loc ac_xml_offset_loc(const ac_pctx *ctx, size_t offset)
{
    ac_loc loc = {ctx->file, 0, 0};
    size_t lo = 0, hi = ctx->nlines;
    unsigned col = 1;
    if (ctx->nlines == 0)
        return loc;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (ctx->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    /* columns count characters (UTF-8 code points), not bytes */
    for (size_t i = ctx->line_starts[lo]; i < offset && i < ctx->len; i++)
        if (((unsigned char)ctx->buf[i] & 0xC0) != 0x80)
            col++;
    loc.line = (unsigned)(lo + 1);
    loc.column = col;
    return loc;
}

/* Skip from `i` (pointing at '<') past a construct ending in `end`; returns the offset after it. */
static size_t skip_past(const char *buf, size_t len, size_t i, const char *end)
{
    size_t elen = strlen(end);
    for (; i + elen <= len; i++)
        if (memcmp(buf + i, end, elen) == 0)
            return i + elen;
    return len;
}

/* End of a start tag beginning at i ('<'): the offset of its '>', honouring quotes. */
static size_t tag_end(const char *buf, size_t len, size_t i)
{
    char quote = 0;
    for (; i < len; i++) {
        char c = buf[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '>') {
            return i;
        }
    }
    return len;
}

static int starts_with(const char *buf, size_t len, size_t i, const char *s)
{
    size_t n = strlen(s);
    return i + n <= len && memcmp(buf + i, s, n) == 0;
}

/* Record the offset of every start tag in document order. */
static int scan_tags(ac_pctx *ctx)
{
    size_t cap = 64, i = 0;
    const char *b = ctx->buf;
    size_t len = ctx->len;
    ctx->tag_offsets = malloc(cap * sizeof *ctx->tag_offsets);
    if (ctx->tag_offsets == NULL)
        return AC_ENOMEM;
    while (i < len) {
        if (b[i] != '<') {
            i++;
            continue;
        }
        if (starts_with(b, len, i, "<!--"))
            i = skip_past(b, len, i + 4, "-->");
        else if (starts_with(b, len, i, "<![CDATA["))
            i = skip_past(b, len, i + 9, "]]>");
        else if (starts_with(b, len, i, "<?"))
            i = skip_past(b, len, i + 2, "?>");
        else if (starts_with(b, len, i, "<!") || starts_with(b, len, i, "</"))
            i = tag_end(b, len, i) + 1;
        else {
            if (ctx->ntags == cap) {
                size_t *t;
                cap *= 2;
                t = realloc(ctx->tag_offsets, cap * sizeof *t);
                if (t == NULL)
                    return AC_ENOMEM;
                ctx->tag_offsets = t;
            }
            ctx->tag_offsets[ctx->ntags++] = i;
            i = tag_end(b, len, i) + 1;
        }
    }
    return AC_OK;
}

static size_t elem_index(const xmlNode *node)
{
    uintptr_t v = (uintptr_t)node->_private;
    return v == 0 ? AC_NONE : (size_t)(v - 1);
}

ac_loc ac_xml_elem_loc(const ac_pctx *ctx, const xmlNode *node)
{
    size_t k = node != NULL ? elem_index(node) : AC_NONE;
    ac_loc loc = {ctx->file, 0, 0};
    if (k != AC_NONE && k < ctx->ntags)
        return ac_xml_offset_loc(ctx, ctx->tag_offsets[k]);
    if (node != NULL) {
        long line = xmlGetLineNo(node);
        loc.line = line > 0 ? (unsigned)line : 0;
    }
    return loc;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == ':' || (unsigned char)c >= 0x80;
}

ac_loc ac_xml_attr_loc(const ac_pctx *ctx, const xmlNode *node, const char *attr)
{
    size_t k = elem_index(node);
    size_t i, end, n = strlen(attr);
    const char *b = ctx->buf;
    char quote = 0;
    if (k == AC_NONE || k >= ctx->ntags)
        return ac_xml_elem_loc(ctx, node);
    i = ctx->tag_offsets[k] + 1;
    end = tag_end(b, ctx->len, ctx->tag_offsets[k]);
    while (i < end && is_name_char(b[i])) /* the element name */
        i++;
    for (; i < end; i++) {
        char c = b[i];
        if (quote) {
            if (c == quote)
                quote = 0;
            continue;
        }
        if (c == '"' || c == '\'') {
            quote = c;
            continue;
        }
        if (i + n <= end && memcmp(b + i, attr, n) == 0 && !is_name_char(b[i - 1]) &&
            !is_name_char(b[i + n])) {
            size_t j = i + n;
            while (j < end && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n'))
                j++;
            if (j < end && b[j] == '=')
                return ac_xml_offset_loc(ctx, i);
        }
    }
    return ac_xml_elem_loc(ctx, node);
}

/* ---- libxml2 errors ---- */

static void trim_message(char *m)
{
    size_t n = strlen(m);
    while (n > 0 && (m[n - 1] == '\n' || m[n - 1] == ' ' || m[n - 1] == '\r'))
        m[--n] = '\0';
}

static void parse_error(void *user, xmlErrorPtr e)
{
    xmlParserCtxtPtr pc = user;
    ac_pctx *ctx = pc != NULL ? pc->_private : NULL;
    const char *rule = "AC002";
    char msg[AC_ERROR_MESSAGE_MAX];
    ac_loc loc;
    if (ctx == NULL || e == NULL || e->level == XML_ERR_WARNING)
        return;
    /* later errors of a malformed document are mostly consequences of the first */
    if (ctx->xml_errors++ > 0)
        return;
    snprintf(msg, sizeof msg, "%s", e->message != NULL ? e->message : "malformed XML");
    trim_message(msg);
    if (e->code == XML_ERR_ENTITY_LOOP || e->code == XML_ERR_UNDECLARED_ENTITY ||
        e->code == XML_WAR_UNDECLARED_ENTITY || e->code == XML_ERR_ENTITY_PE_INTERNAL)
        rule = "AC003";
    if (e->code == XML_ERR_INTERNAL_ERROR && strstr(msg, "depth") != NULL) {
        rule = "AC005"; /* libxml2's own limit, one level past ours: say ours */
        snprintf(msg, sizeof msg, "the elements are nested more than %zu levels deep",
                 AC_PARSER_MAX_DEPTH);
    }
    if (strstr(msg, "Huge input lookup") != NULL || strstr(msg, "huge") != NULL) {
        rule = "AC005"; /* libxml2's limit on one run of text, blanks or a name (10 MB) */
        snprintf(msg, sizeof msg,
                 "a single text, blank run, name or value is longer than "
                 "libxml2 reads (10000000 bytes)");
    }
    loc.file = ctx->file;
    loc.line = e->line > 0 ? (unsigned)e->line : 0;
    loc.column = e->int2 > 0 ? (unsigned)e->int2 : 0;
    ac_pdiag(ctx, loc, NULL, rule, "%s%s",
             strcmp(rule, "AC005") == 0 ? "" : "malformed XML: ", msg);
}

/* Length of the valid UTF-8 sequence at b[i] (1..4), 0 if invalid (overlong forms, UTF-16
 * surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_seq(const unsigned char *b, size_t len, size_t i)
{
    unsigned c = b[i];
    size_t n;
    unsigned cp, min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (i + n > len)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((b[i + k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (b[i + k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* The encoding declared by the XML declaration at b[i] ("<?xml ... encoding='X' ...?>"), if
 * any: its value's offset and length; returns 0 if none is declared. */
static int declared_encoding(const char *b, size_t len, size_t i, size_t *at, size_t *n)
{
    size_t end;
    if (!starts_with(b, len, i, "<?xml") || i + 5 >= len ||
        !(b[i + 5] == ' ' || b[i + 5] == '\t' || b[i + 5] == '\r' || b[i + 5] == '\n'))
        return 0;
    end = skip_past(b, len, i + 2, "?>");
    for (size_t k = i + 5; k + 8 <= end; k++) {
        size_t j;
        char q;
        if (memcmp(b + k, "encoding", 8) != 0 || is_name_char(b[k - 1]))
            continue;
        j = k + 8;
        while (j < end && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n'))
            j++;
        if (j >= end || b[j] != '=')
            continue;
        j++;
        while (j < end && (b[j] == ' ' || b[j] == '\t' || b[j] == '\r' || b[j] == '\n'))
            j++;
        if (j >= end || (b[j] != '"' && b[j] != '\''))
            continue;
        q = b[j++];
        *at = j;
        while (j < end && b[j] != q)
            j++;
        *n = j - *at;
        return 1;
    }
    return 0;
}

/* The bytes are UTF-8 and nothing declares otherwise: a declared encoding (EBCDIC, UTF-7,
 * ...) would make libxml2 read characters the byte scans here never saw (a DOCTYPE hidden
 * as "+ADw-!DOCTYPE" in UTF-7). */
static int check_encoding(ac_pctx *ctx, size_t start)
{
    const unsigned char *u = (const unsigned char *)ctx->buf;
    size_t at = 0, n = 0;
    for (size_t i = 0; i < ctx->len;) {
        size_t k = utf8_seq(u, ctx->len, i);
        if (k == 0) {
            ac_pdiag(ctx, ac_xml_offset_loc(ctx, i), NULL, "AC002",
                     "the file is not UTF-8 (byte 0x%02X here): archcheck reads UTF-8 files only",
                     u[i]);
            return -1;
        }
        i += k;
    }
    if (declared_encoding(ctx->buf, ctx->len, start, &at, &n) &&
        !(n == 5 && strncasecmp(ctx->buf + at, "UTF-8", 5) == 0)) {
        ac_pdiag(ctx, ac_xml_offset_loc(ctx, at), NULL, "AC002",
                 "the XML declaration declares the encoding '%.*s': archcheck reads UTF-8 files "
                 "only (declare encoding=\"UTF-8\" or none)",
                 (int)(n > 40 ? 40 : n), ctx->buf + at);
        return -1;
    }
    return 0;
}

/* Refuse what no architecture file needs and what libxml2 must never see. */
static int prescan(ac_pctx *ctx)
{
    const char *b = ctx->buf;
    size_t len = ctx->len, i = 0;
    ac_loc start = {ctx->file, 1, 1};
    if (len >= 2 && (((unsigned char)b[0] == 0xFE && (unsigned char)b[1] == 0xFF) ||
                     ((unsigned char)b[0] == 0xFF && (unsigned char)b[1] == 0xFE))) {
        ac_pdiag(ctx, start, NULL, "AC002", "the file is UTF-16; archcheck reads UTF-8 files");
        return -1;
    }
    if (memchr(b, '\0', len) != NULL) {
        ac_loc at = ac_xml_offset_loc(ctx, (size_t)((const char *)memchr(b, '\0', len) - b));
        ac_pdiag(ctx, at, NULL, "AC002",
                 "the file contains a NUL byte: it is not an XML text file");
        return -1;
    }
    if (len == 0) {
        ac_pdiag(ctx, start, NULL, "AC002",
                 "the file is empty: an <architecture> element is needed");
        return -1;
    }
    /* the prolog: XML declaration, comments, processing instructions, blanks */
    if (len >= 3 && (unsigned char)b[0] == 0xEF && (unsigned char)b[1] == 0xBB &&
        (unsigned char)b[2] == 0xBF)
        i = 3;
    if (check_encoding(ctx, i) != 0)
        return -1;
    while (i < len) {
        if (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')
            i++;
        else if (starts_with(b, len, i, "<?"))
            i = skip_past(b, len, i + 2, "?>");
        else if (starts_with(b, len, i, "<!--"))
            i = skip_past(b, len, i + 4, "-->");
        else if (starts_with(b, len, i, "<!DOCTYPE") || starts_with(b, len, i, "<!ENTITY") ||
                 starts_with(b, len, i, "<!")) {
            ac_pdiag(ctx, ac_xml_offset_loc(ctx, i), NULL, "AC003",
                     "DOCTYPE declarations are not allowed: architecture files need no DTD, and "
                     "entities (external or nested) are never loaded or expanded");
            return -1;
        } else
            break;
    }
    return 0;
}

/* One element: number it (in _private), strip our namespace, count. */
static int number_one(ac_pctx *ctx, xmlNode *node, size_t *k, size_t depth)
{
    node->_private = (void *)(uintptr_t)(*k + 1);
    (*k)++;
    if (*k > AC_PARSER_MAX_ELEMENTS) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, node), NULL, "AC005",
                 "the file has more than %zu elements", AC_PARSER_MAX_ELEMENTS);
        return -1;
    }
    if (depth > AC_PARSER_MAX_DEPTH) {
        ac_pdiag(ctx, ac_xml_elem_loc(ctx, node), NULL, "AC005",
                 "the elements are nested more than %zu levels deep", AC_PARSER_MAX_DEPTH);
        return -1;
    }
    if (node->ns != NULL) {
        if (node->ns->href != NULL && strcmp((const char *)node->ns->href, AC_NAMESPACE) == 0) {
            node->ns = NULL;
        } else {
            ac_pdiag(ctx, ac_xml_elem_loc(ctx, node), NULL, "AC004",
                     "element <%s> is in the namespace '%s'; archcheck elements have no "
                     "namespace or '" AC_NAMESPACE "'",
                     (const char *)node->name,
                     node->ns->href != NULL ? (const char *)node->ns->href : "");
        }
    }
    return 0;
}

/* Number the elements in document order, without recursion (the root is at depth 1). */
static int number_elements(ac_pctx *ctx, xmlNode *root, size_t *k)
{
    xmlNode *node = root;
    size_t depth = 1;
    while (node != NULL) {
        if (node->type == XML_ELEMENT_NODE) {
            if (number_one(ctx, node, k, depth) != 0)
                return -1;
            if (node->children != NULL) {
                node = node->children;
                depth++;
                continue;
            }
        }
        while (node != NULL && node->next == NULL && node != root) {
            node = node->parent;
            depth--;
        }
        if (node == NULL || node == root)
            break;
        node = node->next;
    }
    return 0;
}

xmlDocPtr ac_xml_read(ac_pctx *ctx)
{
    xmlParserCtxtPtr pc = NULL;
    xmlDocPtr doc = NULL;
    size_t k = 0;
    int len;

    if (build_line_index(ctx) != AC_OK || scan_tags(ctx) != AC_OK) {
        ctx->oom = 1;
        return NULL;
    }
    if (prescan(ctx) != 0)
        return NULL;
    if (ctx->len > (size_t)INT32_MAX) {
        ac_loc none = {ctx->file, 0, 0};
        ac_pdiag(ctx, none, NULL, "AC005", "the file is too large");
        return NULL;
    }
    len = (int)ctx->len;
    xmlSetExternalEntityLoader(deny_loader);
    pc = xmlNewParserCtxt();
    if (pc == NULL) {
        ctx->oom = 1;
        return NULL;
    }
    pc->_private = ctx;
    pc->sax->serror = parse_error;
    /* UTF-8 (checked above), whatever the document says */
    doc = xmlCtxtReadMemory(pc, ctx->buf, len, ctx->file, "UTF-8",
                            XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOERROR |
                                XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_IGNORE_ENC);
    if (doc != NULL && !pc->wellFormed) {
        xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(pc);
    if (doc == NULL) {
        if (ac_diag_list_count(ctx->diags, AC_SEV_ERROR) == 0) {
            ac_loc none = {ctx->file, 1, 1};
            ac_pdiag(ctx, none, NULL, "AC002", "malformed XML: the document cannot be parsed");
        }
        return NULL;
    }
    if (doc->intSubset != NULL || doc->extSubset != NULL) {
        ac_loc none = {ctx->file, 1, 1};
        ac_pdiag(ctx, none, NULL, "AC003", "DOCTYPE declarations are not allowed");
        xmlFreeDoc(doc);
        return NULL;
    }
    if (number_elements(ctx, xmlDocGetRootElement(doc), &k) != 0) {
        xmlFreeDoc(doc);
        return NULL;
    }
    if (k != ctx->ntags) /* should not happen; fall back to libxml2's lines */
        ctx->ntags = 0;
    return doc;
}

/* ---- XSD validation ---- */

/* The nearest name declared in the embedded XSD as `<xs:KIND name="...">` (KIND element or
 * attribute) to `word`, into out (empty when none is near). */
static void schema_nearest(const char *kind, const char *word, char *out, size_t size)
{
    const char *xsd = (const char *)ac_parser_schema_xsd, *end = xsd + ac_parser_schema_xsd_len;
    char pat[32], best[64] = "";
    size_t best_d = (size_t)-1, limit = ac_suggest_limit(word), plen;
    snprintf(pat, sizeof pat, "<xs:%s name=\"", kind);
    plen = strlen(pat);
    for (const char *p = xsd; p + plen < end; p++) {
        const char *q;
        char name[64];
        size_t d, n;
        if (memcmp(p, pat, plen) != 0)
            continue;
        q = memchr(p + plen, '"', (size_t)(end - p - (long)plen));
        n = q != NULL ? (size_t)(q - p - (long)plen) : 0;
        if (n == 0 || n >= sizeof name)
            continue;
        memcpy(name, p + plen, n);
        name[n] = '\0';
        d = ac_edit_distance(word, name);
        if (d > 0 && d < best_d && d <= limit) {
            best_d = d;
            memcpy(best, name, n + 1);
        }
    }
    snprintf(out, size, "%s", best);
}

/* The node after n in document order below top, or NULL (an iterative walk); skip: not into
 * n's children. */
static xmlNodePtr xsd_next(xmlNodePtr n, xmlNodePtr top, int skip)
{
    if (!skip && n->children != NULL)
        return n->children;
    while (n != top && n->next == NULL)
        n = n->parent;
    return n == top ? NULL : n->next;
}

/* The first <xs:KIND> below top whose attribute `attr` is `value`, or NULL. */
static xmlNodePtr xsd_find(xmlNodePtr top, const char *kind, const char *attr, const char *value)
{
    for (xmlNodePtr n = top; n != NULL; n = xsd_next(n, top, 0)) {
        xmlChar *v;
        int hit;
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, kind) != 0)
            continue;
        v = xmlGetProp(n, (const xmlChar *)attr);
        hit = v != NULL && strcmp((const char *)v, value) == 0;
        xmlFree(v);
        if (hit)
            return n;
    }
    return NULL;
}

/* The elements allowed at one place: "<a>, <b>" and the nearest of them to a word. */
typedef struct allowed_list {
    char text[900];
    size_t len;
    int known;  /* the list is known (else the XSD did not say) */
    int choice; /* any of them, in any order (else a sequence) */
    const char *word;
    char near[64];
    size_t near_d;
} allowed_list;

static void allowed_add(allowed_list *a, const char *name, size_t n)
{
    char item[80];
    size_t d;
    if (n == 0 || n >= 64)
        return;
    snprintf(item, sizeof item, "<%.*s>", (int)n, name);
    if (strstr(a->text, item) == NULL && a->len + strlen(item) + 3 < sizeof a->text)
        a->len += (size_t)snprintf(a->text + a->len, sizeof a->text - a->len, "%s%s",
                                   a->len > 0 ? ", " : "", item);
    snprintf(item, sizeof item, "%.*s", (int)n, name);
    d = ac_edit_distance(a->word, item);
    if (d > 0 && d < a->near_d && d <= ac_suggest_limit(a->word)) {
        a->near_d = d;
        snprintf(a->near, sizeof a->near, "%.*s", (int)n, name); /* n < 64 */
    }
}

/* The complexType of <parent> in the parsed XSD (inline or named by its type), or NULL. */
static xmlNodePtr xsd_type_of(xmlNodePtr root, const char *parent)
{
    xmlNodePtr decl = xsd_find(root, "element", "name", parent), type = NULL;
    xmlChar *tname;
    if (decl == NULL)
        return NULL;
    tname = xmlGetProp(decl, (const xmlChar *)"type");
    if (tname != NULL)
        type = xsd_find(root, "complexType", "name", (const char *)tname);
    else
        for (type = decl->children; type != NULL; type = type->next)
            if (type->type == XML_ELEMENT_NODE &&
                strcmp((const char *)type->name, "complexType") == 0)
                break;
    xmlFree(tname);
    return type;
}

/* The child elements the embedded XSD declares in <parent>, in the schema's order. */
static void schema_children(const char *parent, allowed_list *out)
{
    xmlDocPtr xsd = xmlReadMemory((const char *)ac_parser_schema_xsd, (int)ac_parser_schema_xsd_len,
                                  "schema.xsd", NULL, XML_PARSE_NONET);
    xmlNodePtr root = xsd != NULL ? xmlDocGetRootElement(xsd) : NULL;
    xmlNodePtr type = root != NULL ? xsd_type_of(root, parent) : NULL;
    if (type != NULL) {
        out->known = 1;
        for (xmlNodePtr c = type->children; c != NULL; c = c->next)
            if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "annotation") != 0) {
                out->choice = strcmp((const char *)c->name, "choice") == 0;
                break;
            }
    }
    for (xmlNodePtr n = type != NULL ? type->children : NULL; n != NULL;) {
        int is_elem = n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, "element") == 0;
        if (is_elem) {
            xmlChar *name = xmlGetProp(n, (const xmlChar *)"name");
            if (name != NULL)
                allowed_add(out, (const char *)name, strlen((const char *)name));
            xmlFree(name);
        }
        n = xsd_next(n, type, is_elem); /* not into an element's own type */
    }
    xmlFreeDoc(xsd);
}

/* libxml2's "Expected is ( a )." / "Expected is one of ( a, b )." after the message. */
static int libxml2_expected(const char *rest, allowed_list *out)
{
    const char *p = strstr(rest, "Expected is "), *end;
    if (p == NULL || (p = strchr(p, '(')) == NULL || (end = strstr(p, " )")) == NULL)
        return 0;
    out->known = 1;
    out->choice = 1;
    for (p++; p < end;) {
        size_t n;
        while (*p == ' ' || *p == ',')
            p++;
        n = strcspn(p, ", )");
        if (p + n > end)
            n = (size_t)(end - p);
        allowed_add(out, p, n);
        p += n;
    }
    return 1;
}

/* "This element is not expected": the elements allowed there (libxml2's list where it gives
 * one, else the XSD's declarations in the parent) and the nearest of them (the nearest
 * element of the whole schema when neither says what is allowed). */
static void schema_unexpected(ac_pctx *ctx, ac_loc loc, const char *elem, const xmlNode *node,
                              const char *rest)
{
    allowed_list a;
    char mean[96] = "";
    const char *parent =
        node != NULL && node->parent != NULL && node->parent->type == XML_ELEMENT_NODE
            ? (const char *)node->parent->name
            : NULL;
    memset(&a, 0, sizeof a);
    a.word = elem;
    a.near_d = (size_t)-1;
    if (!libxml2_expected(rest, &a) && parent != NULL)
        schema_children(parent, &a);
    if (!a.known) /* else only what is allowed here is suggested */
        schema_nearest("element", elem, a.near, sizeof a.near);
    if (a.near[0] != '\0')
        snprintf(mean, sizeof mean, " Did you mean <%s>?", a.near);
    if (!a.known || parent == NULL)
        ac_pdiag(ctx, loc, NULL, "AC004", "element <%s>: This element is not expected.%s", elem,
                 mean);
    else if (a.len == 0)
        ac_pdiag(ctx, loc, NULL, "AC004",
                 "element <%s>: This element is not expected: <%s> takes no child elements.%s",
                 elem, parent, mean);
    else
        ac_pdiag(ctx, loc, NULL, "AC004",
                 "element <%s>: This element is not expected in <%s>.%s %s: %s.", elem, parent,
                 mean,
                 strchr(a.text, ',') == NULL ? "Expected"
                 : a.choice                  ? "Expected one of"
                                             : "Allowed there, in this order",
                 a.text);
}

static void schema_error(void *user, xmlErrorPtr e)
{
    ac_pctx *ctx = user;
    char msg[AC_ERROR_MESSAGE_MAX];
    char elem[128] = "", attr[128] = "";
    const char *rest = NULL;
    const xmlNode *node;
    ac_loc loc;
    if (ctx == NULL || e == NULL || e->level == XML_ERR_WARNING)
        return;
    snprintf(msg, sizeof msg, "%s", e->message != NULL ? e->message : "invalid document");
    trim_message(msg);
    node = e->node;
    if (node != NULL && node->type == XML_ATTRIBUTE_NODE)
        node = node->parent;
    /* "Element 'X'[, attribute 'Y']: rest" */
    if (sscanf(msg, "Element '%127[^']', attribute '%127[^']':", elem, attr) == 2) {
        rest = strstr(msg, "': ");
        rest = rest != NULL ? rest + 3 : msg;
        /* values are checked (with better messages) when the model is built */
        if (strncmp(rest, "The attribute", 13) != 0)
            return;
        loc = node != NULL ? ac_xml_attr_loc(ctx, node, attr) : ac_xml_elem_loc(ctx, NULL);
        {
            char near[64];
            schema_nearest("attribute", attr, near, sizeof near);
            if (near[0] != '\0')
                ac_pdiag(ctx, loc, NULL, "AC004",
                         "element <%s>: attribute '%s' is not allowed here (did you mean '%s'?)",
                         elem, attr, near);
            else
                ac_pdiag(ctx, loc, NULL, "AC004",
                         "element <%s>: attribute '%s' is not allowed here", elem, attr);
        }
        return;
    }
    if (sscanf(msg, "Element '%127[^']':", elem) == 1) {
        rest = strstr(msg, "': ");
        rest = rest != NULL ? rest + 3 : msg;
        if (strstr(rest, "is required but missing") != NULL ||
            strstr(rest, "No matching global declaration") != NULL ||
            (strcmp(elem, "profile") == 0 && strstr(rest, "Missing child") != NULL))
            return; /* reported when the model is built, with a better message */
        loc = ac_xml_elem_loc(ctx, node);
        if (strncmp(rest, "This element is not expected.", 29) == 0) {
            schema_unexpected(ctx, loc, elem, node, rest);
            return;
        }
        ac_pdiag(ctx, loc, NULL, "AC004", "element <%s>: %s", elem, rest);
        return;
    }
    loc = ac_xml_elem_loc(ctx, node);
    ac_pdiag(ctx, loc, NULL, "AC004", "%s", msg);
}

int ac_xml_validate(ac_pctx *ctx, xmlDocPtr doc)
{
    xmlSchemaParserCtxtPtr spc;
    xmlSchemaPtr schema;
    xmlSchemaValidCtxtPtr vc;
    int rc;
    spc = xmlSchemaNewMemParserCtxt((const char *)ac_parser_schema_xsd,
                                    (int)ac_parser_schema_xsd_len);
    if (spc == NULL) {
        ctx->oom = 1;
        return AC_ENOMEM;
    }
    schema = xmlSchemaParse(spc);
    xmlSchemaFreeParserCtxt(spc);
    if (schema == NULL) {
        ac_loc none = {ctx->file, 0, 0};
        ac_pdiag(ctx, none, NULL, "AC004", "internal error: the embedded schema does not compile");
        return AC_EINPUT;
    }
    vc = xmlSchemaNewValidCtxt(schema);
    if (vc == NULL) {
        xmlSchemaFree(schema);
        ctx->oom = 1;
        return AC_ENOMEM;
    }
    xmlSchemaSetValidStructuredErrors(vc, schema_error, ctx);
    rc = xmlSchemaValidateDoc(vc, doc);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    return rc == 0 ? AC_OK : AC_EINPUT;
}
