/*
 * tests/warm_fixture.h: the warm-up fixture of test_confirm_warmup.c and
 * test_validate_warmup.c. An async function at 6 Erlangs (200/s x 30 ms) of a concurrency of
 * 30, cold starts of 500 ms, keep-alive 120 s: tau = 0.53 s (the duration + cold start),
 * tau_slow = 120 s. The empty start needs 200 x 0.53 = 106 instances at once, is capped at 30
 * and drains its backlog on all 30, which stay alive a keep-alive after it; the steady state
 * keeps alive about the busy count's largest value over the last 120 s (about 15).
 */
#ifndef AC_TESTS_WARM_FIXTURE_H
#define AC_TESTS_WARM_FIXTURE_H

static const char warm_xml[] =
    "<architecture name='warm' format='1'>\n"
    "  <workload><source id='s' to='fn' rate='200/s'/></workload>\n"
    "  <function id='fn' invocation='async' concurrency='30' duration='30ms' cold-start='500ms'\n"
    "            keep-alive='120s' timeout='60s' retries='0'/>\n"
    "</architecture>\n";

#endif /* AC_TESTS_WARM_FIXTURE_H */
