/*
 * Tests of parser/: units, defaults, every attribute, references, locations,
 * semantic rules and hostile input (through the library API; the end-to-end
 * behaviour of the binary is in test_cli.c).
 *
 * Hostile input, magnitudes, depth, ids, special files and deep combines:
 * test_parser_limits.c (helpers in tests/parser_helpers.h).
 */
#include "helpers.h"

#include <dirent.h>
#include <sys/stat.h>

#include "archcheck/parser.h"
#include "archcheck/rules.h"
#include "archcheck/serverless.h"
#include "parser/units.h"

#include "parser_helpers.h"

/* ---- units ---- */

static void test_units_duration(void **state)
{
    double v = -1;
    ac_unit_fail f;
    (void)state;
    assert_int_equal(ac_units_duration("120ms", &v, &f), 0);
    assert_double_close(v, 0.12, 0, 1e-15);
    assert_int_equal(ac_units_duration("2.5s", &v, &f), 0);
    assert_double_close(v, 2.5, 0, 1e-15);
    assert_int_equal(ac_units_duration("5min", &v, &f), 0);
    assert_double_close(v, 300, 0, 1e-15);
    assert_int_equal(ac_units_duration("1h", &v, &f), 0);
    assert_double_close(v, 3600, 0, 1e-15);
    assert_int_equal(ac_units_duration("10us", &v, &f), 0);
    assert_double_close(v, 1e-5, 0, 1e-15);
    assert_int_equal(ac_units_duration(" 1e-3s ", &v, &f), 0);
    assert_double_close(v, 1e-3, 0, 1e-15);
    assert_int_equal(ac_units_duration("0ms", &v, &f), 0);
    assert_true(v == 0.0);
    assert_int_equal(ac_units_duration("120", &v, &f), -1);
    assert_string_equal(f.rule, "AC012");
    assert_string_equal(f.message, "needs a unit (us, ms, s, min, h): got '120'");
    assert_int_equal(ac_units_duration("5days", &v, &f), -1);
    assert_string_equal(f.rule, "AC013");
    assert_int_equal(ac_units_duration("-5ms", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_duration("1e400s", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_duration("1e308h", &v, &f), -1); /* overflows after scaling */
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_duration("nan", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
    assert_int_equal(ac_units_duration("infs", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
    assert_int_equal(ac_units_duration("0x10s", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
    assert_string_equal(f.message, "is not a decimal number: got '0x10s'");
    assert_int_equal(ac_units_duration("", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
    assert_int_equal(ac_units_duration("ms", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
}

static void test_units_rate_probability(void **state)
{
    double v = -1;
    ac_unit_fail f;
    (void)state;
    assert_int_equal(ac_units_rate("800", &v, &f), 0);
    assert_double_close(v, 800, 0, 1e-15);
    assert_int_equal(ac_units_rate("800/s", &v, &f), 0);
    assert_double_close(v, 800, 0, 1e-15);
    assert_int_equal(ac_units_rate("3000/min", &v, &f), 0);
    assert_double_close(v, 50, 0, 1e-15);
    assert_int_equal(ac_units_rate("7200/h", &v, &f), 0);
    assert_double_close(v, 2, 0, 1e-15);
    assert_int_equal(ac_units_rate("5/day", &v, &f), -1);
    assert_string_equal(f.rule, "AC013");
    assert_int_equal(ac_units_rate("-1", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_rate("NaN", &v, &f), -1);
    assert_string_equal(f.rule, "AC010");
    assert_int_equal(ac_units_probability("0.05", &v, &f), 0);
    assert_double_close(v, 0.05, 0, 1e-15);
    assert_int_equal(ac_units_probability("5%", &v, &f), 0);
    assert_double_close(v, 0.05, 0, 1e-15);
    assert_int_equal(ac_units_probability("100%", &v, &f), 0);
    assert_double_close(v, 1, 0, 1e-15);
    assert_int_equal(ac_units_probability("1.5", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_probability("150%", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_probability("-0.1", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_probability("0.5ms", &v, &f), -1);
    assert_string_equal(f.rule, "AC013");
}

static void test_units_count_factor(void **state)
{
    size_t c = 0;
    double v = 0;
    ac_unit_fail f;
    (void)state;
    assert_int_equal(ac_units_count("200", 1000, &c, &f), 0);
    assert_int_equal(c, 200);
    assert_int_equal(ac_units_count("1e3", 1000, &c, &f), 0);
    assert_int_equal(c, 1000);
    assert_int_equal(ac_units_count("1001", 1000, &c, &f), -1);
    assert_string_equal(f.rule, "AC015");
    assert_int_equal(ac_units_count("1e12", 1000000, &c, &f), -1);
    assert_string_equal(f.rule, "AC015");
    assert_int_equal(ac_units_count("2.5", 1000, &c, &f), -1);
    assert_string_equal(f.rule, "AC014");
    assert_int_equal(ac_units_count("-1", 1000, &c, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_count("12abc", 1000, &c, &f), -1);
    assert_string_equal(f.rule, "AC014");
    assert_int_equal(ac_units_factor("1.25", &v, &f), 0);
    assert_double_close(v, 1.25, 0, 1e-15);
    assert_int_equal(ac_units_factor("0", &v, &f), -1);
    assert_string_equal(f.rule, "AC011");
    assert_int_equal(ac_units_number("-3.5e2", &v, &f), 0);
    assert_double_close(v, -350, 0, 1e-15);
}

/* ---- defaults and every attribute ---- */

static void test_defaults(void **state)
{
    const char *xml =
        HEAD "<pool id=\"web\" servers=\"4\" service-time=\"50ms\"/>\n"
             "<function id=\"f\" duration=\"100ms\"/>\n"
             "<function id=\"fa\" duration=\"100ms\" invocation=\"async\"/>\n"
             "<queue id=\"q\"/>\n"
             "<gateway id=\"g\"/>\n"
             "<route from=\"web\" to=\"f\"/>\n"
             "<route from=\"f\" to=\"q\" p=\"0.5\"/>\n"
             "<route from=\"q\" to=\"fa\"/>\n"
             "<route from=\"f\" to=\"g\" p=\"0.5\"/>\n"
             "<link from=\"web\" to=\"f\"/>\n"
             "<requirements><latency max=\"1s\"/><scaling max-events=\"3\"/></requirements>\n"
             "</architecture>\n";
    ac_model *m = NULL;
    ac_diag_list d;
    const ac_pool *p;
    const ac_function *f;
    (void)state;
    assert_int_equal(parse(xml, &m, &d), AC_OK);
    assert_non_null(m);
    assert_int_equal(d.count, 0);
    assert_int_equal(m->nnodes, 5);
    p = &m->nodes[0].u.pool;
    assert_int_equal(m->nodes[0].kind, AC_NODE_POOL);
    assert_int_equal(p->servers, 4);
    assert_double_close(p->service_rate, 20.0, 0, 1e-12);
    assert_int_equal(p->dispatch, AC_DISPATCH_RANDOM);
    assert_int_equal(p->d, 2);
    assert_int_equal(p->sampling, AC_SAMPLING_DISTINCT);
    assert_true(p->buffer == AC_UNBOUNDED);
    assert_true(p->timeout == 0.0);
    assert_int_equal(p->retries, 0);
    assert_int_equal(p->has_autoscale, 0);
    f = &m->nodes[1].u.function;
    assert_int_equal(f->concurrency, 1000);
    assert_double_close(f->duration, 0.1, 0, 1e-15);
    assert_true(f->cold_start == 0.0);
    assert_double_close(f->keep_alive, 600, 0, 0);
    assert_double_close(f->scale_rate, 100, 0, 0);
    assert_int_equal(f->scale_burst, 0);
    assert_double_close(ac_function_scale_depth(f), 100, 0, 0); /* max(1, scale-rate) */
    assert_double_close(f->timeout, 3, 0, 0);
    assert_int_equal(f->retries, 0);
    assert_int_equal(f->invocation, AC_INVOCATION_SYNC);
    assert_true(f->fail_prob == 0.0);
    assert_int_equal(m->nodes[2].u.function.retries, 2); /* async default */
    assert_int_equal(m->nodes[2].u.function.invocation, AC_INVOCATION_ASYNC);
    assert_true(m->nodes[3].u.queue.capacity == AC_UNBOUNDED);
    assert_int_equal(m->nodes[3].u.queue.batch_size, 10);
    assert_int_equal(m->nodes[3].u.queue.max_consumers, 1000);
    assert_double_close(m->nodes[3].u.queue.visibility_timeout, 30, 0, 0);
    assert_int_equal(m->nodes[3].u.queue.max_receives, 5);
    assert_true(isinf(m->nodes[4].u.gateway.rate_limit));
    assert_int_equal(m->nodes[4].u.gateway.burst, 1); /* schema, parser and models: depth 1 */
    assert_double_close(m->nodes[4].u.gateway.timeout, 29, 0, 0);
    assert_int_equal(m->nroutes, 4);
    assert_true(m->routes[0].p == 1.0);
    assert_int_equal(m->routes[0].fanout, 1);
    assert_int_equal(m->routes[0].fanin, 1);
    assert_int_equal(m->routes[0].parallel, 0);
    assert_int_equal(m->routes[0].from, 0);
    assert_int_equal(m->routes[0].to, 1);
    assert_true(isinf(m->links[0].capacity));
    assert_true(m->links[0].latency == 0.0);
    assert_true(m->links[0].buffer == AC_UNBOUNDED);
    assert_true(m->sources[0].scv == 1.0);
    assert_true(m->sources[0].profile == AC_NONE);
    assert_int_equal(m->nrequirements, 2);
    assert_true(m->requirements[0].percentile == 0.0); /* the mean */
    assert_true(m->requirements[0].target == AC_NONE);
    assert_int_equal(m->requirements[1].max_events, 3);
    assert_true(isinf(m->requirements[1].max_server_hours));
    assert_int_equal(m->faults.present, 0);
    ac_model_free(m);
    ac_diag_list_clear(&d);
}

/* A file with every element and every attribute set away from its default. */
static const char *const every_attribute_xml =
    "<architecture xmlns=\"urn:archcheck:1\" name=\"shop\" format=\"1\" label=\"Shop — 상점\">\n"
    "<workload>\n"
    "  <source id=\"users\" to=\"gw\" rate=\"3000/min\" scv=\"2.5\"/>\n"
    "  <population id=\"ops\" size=\"20\" think-time=\"5s\" to=\"api\"/>\n"
    "  <profile source=\"users\" repeat=\"true\"><point at=\"0s\" rate=\"10\"/>"
    "<point at=\"1min\" rate=\"60/s\"/></profile>\n"
    "</workload>\n"
    "<gateway id=\"gw\" rate-limit=\"100/s\" burst=\"50\" timeout=\"10s\"/>\n"
    "<pool id=\"api\" servers=\"8\" service-rate=\"25/s\" dispatch=\"power-of-d\" d=\"3\" "
    "sampling=\"with-replacement\" buffer=\"16\" timeout=\"2s\" retries=\"2\">\n"
    "  <autoscale min=\"2\" max=\"20\" target-utilization=\"70%\" interval=\"30s\" "
    "tolerance=\"0.05\" scale-up-delay=\"1min\" cooldown=\"10min\"/>\n"
    "</pool>\n"
    "<function id=\"fn\" concurrency=\"50\" duration=\"200ms\" cold-start=\"1s\" "
    "keep-alive=\"5min\" scale-rate=\"600/min\" scale-burst=\"1000\" timeout=\"5s\" retries=\"1\" "
    "invocation=\"async\" "
    "fail-prob=\"1%\"/>\n"
    "<queue id=\"q\" capacity=\"1000\" batch-size=\"5\" max-consumers=\"7\" "
    "visibility-timeout=\"45s\" max-receives=\"3\"/>\n"
    "<function id=\"agg\" duration=\"50ms\"/>\n"
    "<route from=\"gw\" to=\"api\"/>\n"
    "<route from=\"api\" to=\"fn\" p=\"40%\" fanout=\"4\"/>\n"
    "<route from=\"api\" to=\"q\" parallel=\"true\"/>\n"
    "<route from=\"q\" to=\"agg\" fanin=\"2\"/>\n"
    "<link id=\"l1\" from=\"api\" to=\"fn\" capacity=\"1000/s\" latency=\"2ms\" buffer=\"64\"/>\n"
    "<mitigation id=\"pc\" kind=\"provisioned-concurrency\" target=\"fn\" amount=\"10\"/>\n"
    "<mitigation id=\"pw\" kind=\"pre-warming\" target=\"fn\" amount=\"5\" interval=\"1min\"/>\n"
    "<mitigation id=\"ss\" kind=\"snapstart\" target=\"agg\" restore=\"200ms\"/>\n"
    "<mitigation id=\"more\" kind=\"add-servers\" target=\"api\" amount=\"4\"/>\n"
    "<mitigation id=\"rl\" kind=\"rate-limit\" target=\"gw\" rate=\"80\" burst=\"20\"/>\n"
    "<mitigation id=\"rb\" kind=\"retry-budget\" target=\"api\" ratio=\"10%\"/>\n"
    "<mitigation id=\"st\" kind=\"set\" target=\"api\" attribute=\"timeout\" value=\"4s\"/>\n"
    "<mitigation id=\"both\" kind=\"combine\" of=\"pw more\"/>\n"
    "<faults budget=\"500\" seed=\"42\">\n"
    "  <fault target=\"fn\" delay=\"0ms..2s\" fail-prob=\"0..30%\" cold-start=\"100ms..3s\" "
    "at=\"0s..1min\" for=\"10s..30s\"/>\n"
    "  <fault target=\"api\" servers-down=\"0..3\"/>\n"
    "  <fault target=\"l1\" capacity-loss=\"10%..50%\"/>\n"
    "  <objective tau=\"0.6\"><term metric=\"p95-latency\" target=\"fn\" weight=\"2\" "
    "norm=\"1s\"/><term metric=\"error-rate\" norm=\"20%\"/></objective>\n"
    "</faults>\n"
    "<requirements>\n"
    "  <latency percentile=\"99.9\" max=\"500ms\" target=\"api\"/>\n"
    "  <utilization max=\"0.85\"/><loss max=\"1e-4\"/><throughput min=\"800/s\"/>\n"
    "  <headroom min=\"1.25\"/><recovery max=\"1min\"/>\n"
    "  <scaling max-events=\"20\" max-server-hours=\"500\"/>\n"
    "  <resilience tau=\"0.7\" min-boundary=\"3000/s\" mitigation=\"pc\"/>\n"
    "</requirements>\n"
    "<suppress rule=\"AC024\" target=\"agg\" reason=\"known\"/>\n"
    "</architecture>\n";

/* The system's elements of every_attribute_xml: workload, nodes, routes, links. */
static void check_every_system_attribute(const ac_model *m)
{
    const ac_pool *p;
    const ac_function *f;
    assert_double_close(m->sources[0].rate, 50, 0, 1e-12);
    assert_double_close(m->sources[0].scv, 2.5, 0, 0);
    assert_int_equal(m->sources[0].profile, 0);
    assert_int_equal(m->sources[0].to, 0);
    assert_int_equal(m->populations[0].size, 20);
    assert_double_close(m->populations[0].think_time, 5, 0, 0);
    assert_int_equal(m->populations[0].to, 1);
    assert_int_equal(m->profiles[0].repeat, 1);
    assert_int_equal(m->profiles[0].npoints, 2);
    assert_double_close(m->profiles[0].points[1].at, 60, 0, 0);
    assert_double_close(m->profiles[0].points[1].rate, 60, 0, 0);
    assert_double_close(m->nodes[0].u.gateway.rate_limit, 100, 0, 0);
    assert_int_equal(m->nodes[0].u.gateway.burst, 50);
    assert_double_close(m->nodes[0].u.gateway.timeout, 10, 0, 0);
    p = &m->nodes[1].u.pool;
    assert_int_equal(p->servers, 8);
    assert_double_close(p->service_rate, 25, 0, 0);
    assert_int_equal(p->dispatch, AC_DISPATCH_POWER_OF_D);
    assert_int_equal(p->d, 3);
    assert_int_equal(p->sampling, AC_SAMPLING_WITH_REPLACEMENT);
    assert_int_equal(p->buffer, 16);
    assert_double_close(p->timeout, 2, 0, 0);
    assert_int_equal(p->retries, 2);
    assert_int_equal(p->has_autoscale, 1);
    assert_int_equal(p->autoscale.min, 2);
    assert_int_equal(p->autoscale.max, 20);
    assert_double_close(p->autoscale.target_utilization, 0.7, 0, 1e-15);
    assert_double_close(p->autoscale.interval, 30, 0, 0);
    assert_double_close(p->autoscale.tolerance, 0.05, 0, 0);
    assert_double_close(p->autoscale.scale_up_delay, 60, 0, 0);
    assert_double_close(p->autoscale.cooldown, 600, 0, 0);
    f = &m->nodes[2].u.function;
    assert_int_equal(f->concurrency, 50);
    assert_double_close(f->duration, 0.2, 0, 1e-15);
    assert_double_close(f->cold_start, 1, 0, 0);
    assert_double_close(f->keep_alive, 300, 0, 0);
    assert_double_close(f->scale_rate, 10, 0, 1e-15);
    assert_int_equal(f->scale_burst, 1000);
    assert_double_close(ac_function_scale_depth(f), 1000, 0, 0);
    assert_double_close(f->timeout, 5, 0, 0);
    assert_int_equal(f->retries, 1);
    assert_int_equal(f->retries_given, 1);
    assert_int_equal(f->invocation, AC_INVOCATION_ASYNC);
    assert_double_close(f->fail_prob, 0.01, 0, 1e-15);
    assert_int_equal(m->nodes[3].u.queue.capacity, 1000);
    assert_int_equal(m->nodes[3].u.queue.batch_size, 5);
    assert_int_equal(m->nodes[3].u.queue.max_consumers, 7);
    assert_double_close(m->nodes[3].u.queue.visibility_timeout, 45, 0, 0);
    assert_int_equal(m->nodes[3].u.queue.max_receives, 3);
    assert_double_close(m->routes[1].p, 0.4, 0, 1e-15);
    assert_int_equal(m->routes[1].fanout, 4);
    assert_int_equal(m->routes[2].parallel, 1);
    assert_int_equal(m->routes[3].fanin, 2);
    assert_string_equal(m->links[0].id, "l1");
    assert_double_close(m->links[0].capacity, 1000, 0, 0);
    assert_double_close(m->links[0].latency, 0.002, 0, 1e-15);
    assert_int_equal(m->links[0].buffer, 64);
}

/* The review's elements of every_attribute_xml: mitigations, faults, requirements, suppressions. */
static void check_every_review_attribute(const ac_model *m)
{
    const ac_faults *fs;
    assert_int_equal(m->nmitigations, 8);
    assert_int_equal(m->mitigations[0].kind, AC_MIT_PROVISIONED_CONCURRENCY);
    assert_int_equal(m->mitigations[0].target, 2);
    assert_int_equal(m->mitigations[0].amount, 10);
    assert_double_close(m->mitigations[1].interval, 60, 0, 0);
    assert_double_close(m->mitigations[2].restore, 0.2, 0, 1e-15);
    assert_double_close(m->mitigations[4].rate, 80, 0, 0);
    assert_int_equal(m->mitigations[4].burst, 20);
    assert_double_close(m->mitigations[5].ratio, 0.1, 0, 1e-15);
    assert_string_equal(m->mitigations[6].attribute, "timeout");
    assert_string_equal(m->mitigations[6].value, "4s");
    assert_int_equal(m->mitigations[7].nof, 2);
    assert_int_equal(m->mitigations[7].of[0], 1);
    assert_int_equal(m->mitigations[7].of[1], 3);
    fs = &m->faults;
    assert_int_equal(fs->present, 1);
    assert_int_equal(fs->budget, 500);
    assert_int_equal(fs->has_seed, 1);
    assert_int_equal(fs->seed, 42);
    assert_int_equal(fs->count, 3);
    assert_true(fs->items[0].delay.present);
    assert_double_close(fs->items[0].delay.hi, 2, 0, 0);
    assert_double_close(fs->items[0].fail_prob.hi, 0.3, 0, 1e-15);
    assert_double_close(fs->items[0].cold_start.lo, 0.1, 0, 1e-15);
    assert_double_close(fs->items[0].at.hi, 60, 0, 0);
    assert_double_close(fs->items[0].duration.lo, 10, 0, 0);
    assert_false(fs->items[0].servers_down.present);
    assert_double_close(fs->items[1].servers_down.hi, 3, 0, 0);
    assert_int_equal(fs->items[2].target_is_link, 1);
    assert_int_equal(fs->items[2].target, 0);
    assert_double_close(fs->items[2].capacity_loss.lo, 0.1, 0, 1e-15);
    assert_double_close(fs->tau, 0.6, 0, 0);
    assert_int_equal(fs->nterms, 2);
    assert_int_equal(fs->terms[0].metric, AC_METRIC_P95_LATENCY);
    assert_int_equal(fs->terms[0].target, 2);
    assert_double_close(fs->terms[0].weight, 2, 0, 0);
    assert_double_close(fs->terms[0].norm, 1, 0, 0);
    assert_true(fs->terms[1].target == AC_NONE);
    assert_double_close(fs->terms[1].weight, 1, 0, 0);
    assert_double_close(fs->terms[1].norm, 0.2, 0, 1e-15);
    assert_int_equal(m->nrequirements, 8);
    assert_int_equal(m->requirements[0].kind, AC_REQ_LATENCY);
    assert_double_close(m->requirements[0].percentile, 99.9, 0, 0);
    assert_double_close(m->requirements[0].max, 0.5, 0, 0);
    assert_int_equal(m->requirements[0].target, 1);
    assert_double_close(m->requirements[3].min, 800, 0, 0);
    assert_double_close(m->requirements[4].min, 1.25, 0, 0);
    assert_double_close(m->requirements[5].max, 60, 0, 0);
    assert_int_equal(m->requirements[6].max_events, 20);
    assert_double_close(m->requirements[6].max_server_hours, 500, 0, 0);
    assert_double_close(m->requirements[7].min, 3000, 0, 0);
    assert_int_equal(m->requirements[7].mitigation, 0);
    assert_string_equal(m->suppressions[0].rule, "AC024");
    assert_int_equal(m->suppressions[0].target, 4);
    assert_string_equal(m->suppressions[0].reason, "known");
}

static void test_every_attribute(void **state)
{
    ac_model *m = NULL;
    ac_diag_list d;
    (void)state;
    if (parse(every_attribute_xml, &m, &d) != AC_OK)
        dump(&d);
    assert_non_null(m);
    assert_int_equal(d.count, 0);
    assert_string_equal(m->name, "shop");
    assert_string_equal(m->label, "Shop — 상점");
    check_every_system_attribute(m);
    check_every_review_attribute(m);
    ac_model_free(m);
    ac_diag_list_clear(&d);
}

/* ---- diagnostics with exact locations ---- */

static void test_locations(void **state)
{
    (void)state;
    expect_one(HEAD "  <pool id=\"web\" servers=\"2\" service-time=\"120\"/>\n</architecture>\n",
               "AC012", 3, 30);
    expect_one(HEAD
               "<pool id=\"web\"\n      servers=\"0\" service-time=\"1s\"/>\n</architecture>\n",
               "AC011", 4, 7);
    expect_one(HEAD "<pool id=\"web\" servers=\"1e12\" service-time=\"1s\"/>\n</architecture>\n",
               "AC015", 3, 16);
    expect_one(HEAD "<pool id=\"web\" servers=\"2\" service-time=\"1s\" dispatch=\"rr\"/>\n"
                    "</architecture>\n",
               "AC017", 3, 46);
    expect_one(HEAD "<pool id=\"web\" servers=\"2\" service-time=\"1s\" bogus=\"1\"/>\n"
                    "</architecture>\n",
               "AC004", 3, 46);
    expect_one(HEAD "<pool id=\"web\" servers=\"2\"/>\n</architecture>\n", "AC018", 3, 1);
    /* scale-burst (doc/format.md's extension): a count of at least 1, at most 10^6 */
    expect_one(HEAD "<function id=\"web\" duration=\"1s\" scale-burst=\"0\"/>\n</architecture>\n",
               "AC011", 3, 34);
    expect_one(HEAD "<function id=\"web\" duration=\"1s\" scale-burst=\"2000000\"/>\n"
                    "</architecture>\n",
               "AC015", 3, 34);
    expect_one(HEAD "<pool id=\"web\" service-time=\"1s\"/>\n</architecture>\n", "AC004", 3, 1);
    /* a label with multi-byte characters before the attribute: columns count characters */
    expect_one(HEAD "<pool label=\"é€\" id=\"web\" servers=\"x\" service-time=\"1s\"/>\n"
                    "</architecture>\n",
               "AC010", 3, 27);
    expect_one(HEAD
               "<pool id=\"web\" servers=\"2\" service-time=\"1s\"/>\n<bogus/>\n</architecture>\n",
               "AC004", 4, 1);
    expect_one(HEAD "<pool id=\"web\" servers=\"2\" service-time=\"1s\"/>\n"
                    "<route from=\"web\" to=\"dbx\"/>\n</architecture>\n",
               "AC021", 4, 19);
}

static void test_errors_are_all_reported(void **state)
{
    const char *xml = HEAD "<pool id=\"web\" servers=\"-1\" service-time=\"nan\" dispatch=\"x\" "
                           "buffer=\"0\" retries=\"1.5\"/>\n</architecture>\n";
    ac_model *m = NULL;
    ac_diag_list d;
    (void)state;
    assert_int_equal(parse(xml, &m, &d), AC_EINPUT);
    assert_int_equal(count_rule(&d, "AC011"), 2); /* servers, buffer */
    assert_int_equal(count_rule(&d, "AC010"), 1);
    assert_int_equal(count_rule(&d, "AC017"), 1);
    assert_int_equal(count_rule(&d, "AC014"), 1);
    for (size_t i = 1; i < d.count; i++) /* sorted by position */
        assert_true(d.items[i - 1].column <= d.items[i].column);
    ac_diag_list_clear(&d);
}

/* ---- semantic rules ---- */

static void test_semantics(void **state)
{
    (void)state;
    expect_rule(HEAD POOL("web") POOL("web") "</architecture>", "AC020", 1);
    expect_rule(HEAD POOL("web") "<route from=\"web\" to=\"u\"/></architecture>", "AC022", 1);
    expect_rule(HEAD POOL("web") "<route from=\"u\" to=\"web\"/></architecture>", "AC022", 1);
    expect_rule(
        HEAD POOL("web") POOL("a") POOL(
            "b") "<route from=\"web\" to=\"a\" p=\"0.6\"/><route from=\"web\" to=\"b\" p=\"0.5\"/>"
                 "</architecture>",
        "AC023", 1);
    /* parallel routes are outside the sum */
    expect_rule(HEAD POOL("web") POOL("a") POOL(
                    "b") "<route from=\"web\" to=\"a\" p=\"0.6\"/><route from=\"web\" to=\"b\" "
                         "parallel=\"true\"/></architecture>",
                "AC023", 0);
    expect_rule(HEAD POOL("web") POOL("orphan") "</architecture>", "AC024", 1);
    expect_rule(
        HEAD POOL("web") "<workload><profile source=\"u\"><point at=\"0s\" rate=\"1\"/>"
                         "<point at=\"0s\" rate=\"2\"/></profile></workload></architecture>",
        "AC025", 1);
    expect_rule(
        HEAD POOL("web") "<workload><profile source=\"web\"><point at=\"0s\" rate=\"1\"/>"
                         "<point at=\"1s\" rate=\"2\"/></profile></workload></architecture>",
        "AC022", 1);
    expect_rule(
        HEAD POOL("web") "<route from=\"web\" to=\"fn\"/><function id=\"fn\" duration=\"10ms\"/>"
                         "<mitigation id=\"s\" kind=\"snapstart\" target=\"fn\" restore=\"1ms\"/>"
                         "<mitigation id=\"p\" kind=\"provisioned-concurrency\" target=\"fn\" "
                         "amount=\"2\"/>"
                         "<mitigation id=\"c\" kind=\"combine\" of=\"s p\"/></architecture>",
        "AC026", 1);
    expect_rule(HEAD POOL("web") "<mitigation id=\"a\" kind=\"combine\" of=\"b\"/>"
                                 "<mitigation id=\"b\" kind=\"combine\" of=\"a\"/></architecture>",
                "AC026", 2);
    expect_rule(HEAD POOL("web") "<mitigation id=\"s\" kind=\"snapstart\" target=\"web\" "
                                 "restore=\"1ms\"/></architecture>",
                "AC022", 1);
    expect_rule(HEAD POOL("web") "<mitigation id=\"s\" kind=\"add-servers\" target=\"web\"/>"
                                 "</architecture>",
                "AC029", 1);
    expect_rule(HEAD POOL("web") "<mitigation id=\"s\" kind=\"set\" target=\"web\" "
                                 "attribute=\"servers\" value=\"many\"/></architecture>",
                "AC010", 1);
    expect_rule(HEAD POOL("web") "<mitigation id=\"s\" kind=\"set\" target=\"web\" "
                                 "attribute=\"colour\" value=\"1\"/></architecture>",
                "AC029", 1);
    expect_rule(HEAD POOL("web") "<faults><fault target=\"web\" cold-start=\"0ms..1s\"/></faults>"
                                 "</architecture>",
                "AC022", 1);
    expect_rule(HEAD POOL("web") "<faults><fault target=\"web\" delay=\"2s..1s\"/></faults>"
                                 "</architecture>",
                "AC016", 1);
    expect_rule(HEAD POOL("web") "<faults><fault target=\"web\" servers-down=\"0..2\"/></faults>"
                                 "</architecture>",
                "AC011", 1);
    expect_rule(HEAD POOL("web") "<faults/><faults/></architecture>", "AC030", 1);
    expect_rule(HEAD POOL("web") "<suppress rule=\"AC777\" reason=\"x\"/></architecture>", "AC027",
                1);
    expect_rule(HEAD POOL("web") "<suppress rule=\"AC024\" reason=\"  \"/></architecture>", "AC028",
                1);
    expect_rule(HEAD POOL("web") "<suppress rule=\"AC024\"/></architecture>", "AC004", 1);
    expect_rule(HEAD "<pool id=\"web\" servers=\"2\" service-time=\"1s\" service-rate=\"1\"/>"
                     "</architecture>",
                "AC018", 1);
    expect_rule(HEAD "<pool id=\"web\" servers=\"3\" service-time=\"1s\" dispatch=\"power-of-d\" "
                     "d=\"5\"/></architecture>",
                "AC011", 1);
    expect_rule(HEAD "<pool id=\"web\" servers=\"3\" service-time=\"1s\"><autoscale min=\"5\" "
                     "max=\"4\" target-utilization=\"0.5\"/></pool></architecture>",
                "AC018", 1);
    expect_rule("<architecture format=\"2\"></architecture>", "AC006", 1);
    expect_rule("<pool id=\"a\" servers=\"1\" service-time=\"1s\"/>", "AC006", 1);
    expect_rule("<architecture format=\"1\" xmlns=\"urn:other\"></architecture>", "AC004", 1);
    expect_rule("<architecture format=\"1\"></architecture>", "AC031", 1);
}

/* One problem, one diagnostic: no cascades. */
static void test_no_cascades(void **state)
{
    (void)state;
    expect_one(HEAD POOL("web") "<mitigation id=\"m\" kind=\"add-servers\" target=\"web\" "
                                "amount=\"0\"/></architecture>",
               "AC011", 4, 52);
    expect_one(HEAD POOL("web") "<mitigation id=\"m\" kind=\"add-servers\" target=\"WEB\" "
                                "amount=\"2\"/></architecture>",
               "AC021", 4, 39);
    expect_one(HEAD POOL("web") "<mitigation id=\"m\" kind=\"add-servers\" target=\"web\" "
                                "amount=\"2\" rate=\"5\"/></architecture>",
               "AC029", 4, 63);
    expect_one(HEAD POOL("web") "<faults><fault target=\"web\" delay=\"2s..1s\"/></faults>"
                                "</architecture>",
               "AC016", 4, 29);
    expect_one(HEAD POOL("web") "<faults><fault target=\"web\"/></faults></architecture>", "AC018",
               4, 9);
    expect_one(HEAD POOL("web") "<requirements/>\n<requirements/></architecture>", "AC030", 5, 1);
    expect_one(HEAD POOL("web") "<workload><profile source=\"u\"><point at=\"0s\" rate=\"1\"/>"
                                "</profile></workload></architecture>",
               "AC025", 4, 11);
    expect_one(HEAD POOL("web") POOL("web") "</architecture>", "AC020", 4, 1);
    /* lone CR line ends count as lines */
    expect_one("<architecture format=\"1\">\r<workload><source id=\"u\" to=\"web\" rate=\"1\"/>"
               "</workload>\r<pool id=\"web\" servers=\"x\" service-time=\"1s\"/></architecture>",
               "AC010", 3, 16);
}

/* ---- samples ---- */

static void test_samples_parse(void **state)
{
    DIR *dir = opendir(AC_SOURCE_DIR "/samples");
    struct dirent *e;
    size_t n = 0;
    (void)state;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        char path[1024];
        ac_model *m = NULL;
        ac_diag_list d;
        ac_error err = {0};
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".xml") != 0)
            continue;
        snprintf(path, sizeof path, "%s/samples/%s", AC_SOURCE_DIR, e->d_name);
        ac_diag_list_init(&d);
        if (ac_parser_parse_file(path, &m, &d, &err) != AC_OK)
            dump(&d);
        assert_non_null(m);
        assert_int_equal(ac_diag_list_count(&d, AC_SEV_WARNING), 0);
        assert_true(m->nnodes > 0);
        assert_true(m->nsources + m->npopulations > 0);
        ac_model_free(m);
        ac_diag_list_clear(&d);
        n++;
    }
    closedir(dir);
    assert_true(n >= 6);
}

static void test_schema_embedded(void **state)
{
    size_t len = 0;
    const char *xsd = ac_parser_schema(&len);
    char *file = ac_test_read_file(AC_SOURCE_DIR "/schema/archcheck.xsd");
    (void)state;
    assert_non_null(file);
    assert_int_equal(len, strlen(file));
    assert_memory_equal(xsd, file, len);
    free(file);
}

static void test_rules_catalogue(void **state)
{
    size_t n = 0;
    const ac_rule *r = ac_rules_all(&n);
    (void)state;
    assert_true(n >= 25);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(strlen(r[i].id), 5);
        assert_true(strncmp(r[i].id, "AC", 2) == 0);
        assert_true(strlen(r[i].summary) > 10);
        assert_true(strlen(r[i].help) > 10);
        if (i > 0)
            assert_true(strcmp(r[i - 1].id, r[i].id) < 0);
        assert_ptr_equal(ac_rule_find(r[i].id), &r[i]);
    }
    assert_null(ac_rule_find("AC999"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_duration),
        cmocka_unit_test(test_units_rate_probability),
        cmocka_unit_test(test_units_count_factor),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_attribute),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_errors_are_all_reported),
        cmocka_unit_test(test_semantics),
        cmocka_unit_test(test_no_cascades),
        cmocka_unit_test(test_samples_parse),
        cmocka_unit_test(test_schema_embedded),
        cmocka_unit_test(test_rules_catalogue),
    };
    return cmocka_run_group_tests_name("parser", tests, NULL, NULL);
}
