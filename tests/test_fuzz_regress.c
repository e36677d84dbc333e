/*
 * Regression tests for the inputs the fuzzers (fuzz/) found: each runs the reproducing input
 * through the library and asserts no crash (the sanitizer builds make undefined behaviour
 * fatal) and a sane result or a clean refusal.
 */
#include "helpers.h"

#include <stdint.h>

#include "parser/units.h"

/* fuzz_units: a count of 2^64 with max = SIZE_MAX passed `v > (double)max` ((double)SIZE_MAX
 * rounds up to 2^64) and was cast to size_t out of range (undefined behaviour, UBSan
 * float-cast-overflow). It is refused as over the limit; the largest counts still pass. */
static void test_count_at_two_to_the_64(void **state)
{
    size_t c = 7;
    ac_unit_fail fail = {NULL, ""};
    (void)state;
    assert_int_equal(ac_units_count("18446744073709551616", SIZE_MAX, &c, &fail), -1);
    assert_string_equal(fail.rule, "AC015");
    assert_true(fail.message[0] != '\0');
    assert_int_equal(c, 7);
    assert_int_equal(ac_units_count("1e20", SIZE_MAX, &c, &fail), -1);
    assert_int_equal(ac_units_count("4294967295", SIZE_MAX, &c, &fail), 0);
    assert_int_equal(c, 4294967295u);
    assert_int_equal(ac_units_count("1e19", SIZE_MAX, &c, &fail), 0);
    assert_true(c == (size_t)10000000000000000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_at_two_to_the_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
