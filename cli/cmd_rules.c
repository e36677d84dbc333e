/*
 * archcheck rules: the rule catalogue.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "archcheck/rules.h"
#include "cli/cli.h"
#include "common/jsonw.h"

static const char rules_usage[] =
    "usage: archcheck rules [--format text|json] [--verbose]\n"
    "\n"
    "List every rule archcheck can report: id, default severity, name and a one-line\n"
    "description (--verbose adds what to do about it). Rule ids are stable; use them\n"
    "in <suppress rule=\"...\" reason=\"...\"/>.\n";

int ac_cli_rules(int argc, char **argv)
{
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                         {"verbose", no_argument, NULL, 'v'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const char *const formats[] = {"text", "json", NULL};
    ac_cli_format format = AC_FORMAT_TEXT;
    int verbose = 0, c;
    size_t n = 0;
    const ac_rule *rules = ac_rules_all(&n);

    optind = 0;
    while ((c = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (ac_cli_parse_format(optarg, formats, &format) != 0)
                return AC_EXIT_USAGE;
            break;
        case 'v': verbose = 1; break;
        case 'h': fputs(rules_usage, stdout); return AC_EXIT_PASS;
        default: fputs(rules_usage, stderr); return AC_EXIT_USAGE;
        }
    }
    if (optind < argc)
        return ac_cli_fail("rules: unexpected argument '%s'", argv[optind]);
    if (format == AC_FORMAT_JSON) {
        ac_jsonw w;
        ac_jsonw_init(&w, stdout);
        ac_jsonw_array_begin(&w);
        for (size_t i = 0; i < n; i++) {
            ac_jsonw_object_begin(&w);
            ac_jsonw_key(&w, "id");
            ac_jsonw_string(&w, rules[i].id);
            ac_jsonw_key(&w, "severity");
            ac_jsonw_string(&w, ac_severity_name(rules[i].severity));
            ac_jsonw_key(&w, "name");
            ac_jsonw_string(&w, rules[i].name);
            ac_jsonw_key(&w, "summary");
            ac_jsonw_string(&w, rules[i].summary);
            ac_jsonw_key(&w, "help");
            ac_jsonw_string(&w, rules[i].help);
            ac_jsonw_object_end(&w);
        }
        ac_jsonw_array_end(&w);
        ac_jsonw_end(&w);
    } else {
        for (size_t i = 0; i < n; i++) {
            printf("%s  %-7s  %-26s %s\n", rules[i].id, ac_severity_name(rules[i].severity),
                   rules[i].name, rules[i].summary);
            if (verbose)
                printf("       %s\n", rules[i].help);
        }
    }
    return AC_EXIT_PASS; /* a write error on stdout: main() reports it */
}
