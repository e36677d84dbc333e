/*
 * libFuzzer target for the parser: any byte string must give a model or
 * diagnostics, never a crash, a leak or undefined behaviour.
 */
#include <stddef.h>
#include <stdint.h>

#include "archcheck/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ac_model *m = NULL;
    ac_diag_list d;
    ac_error err = {0};
    ac_diag_list_init(&d);
    (void)ac_parser_parse_memory((const char *)data, size, "fuzz.xml", &m, &d, &err);
    ac_model_free(m);
    ac_diag_list_clear(&d);
    return 0;
}
