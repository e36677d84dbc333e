/*
 * archcheck schema: print the XSD of the input format.
 */
#include <stdio.h>
#include <string.h>

#include "archcheck/parser.h"
#include "cli/cli.h"

int ac_cli_schema(int argc, char **argv)
{
    size_t len = 0;
    const char *xsd = ac_parser_schema(&len);
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs("usage: archcheck schema > archcheck.xsd\n"
              "\n"
              "Print the XML Schema of the architecture format. Point your editor at it for\n"
              "validation and completion: add "
              "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"\n"
              "and xsi:noNamespaceSchemaLocation=\"archcheck.xsd\" to <architecture>.\n",
              stdout);
        return AC_EXIT_PASS;
    }
    if (argc > 1)
        return ac_cli_fail("schema: unexpected argument '%s'", argv[1]);
    (void)fwrite(xsd, 1, len, stdout);
    return AC_EXIT_PASS; /* a write error: main() reports it */
}
