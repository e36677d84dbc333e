/*
 * The rule catalogue. Ids are stable: never renumber or reuse one.
 */
#include "archcheck/rules.h"

#include <string.h>

static const ac_rule rules[] = {
    {"AC001", AC_SEV_ERROR, "unreadable-file", "the input file cannot be read",
     "Check the path and permissions. Input files are limited to 16 MiB."},
    {"AC002", AC_SEV_ERROR, "xml-syntax", "the input is not well-formed XML",
     "Fix the XML syntax at the location given (unclosed tags, stray characters, bad encoding)."},
    {"AC003", AC_SEV_ERROR, "doctype-forbidden",
     "DOCTYPE declarations, entities and external references are not allowed",
     "Architecture files never need a DTD. Entities are neither loaded nor expanded, so that a "
     "file cannot read other files or expand into gigabytes (entity bombs). Remove the DOCTYPE."},
    {"AC004", AC_SEV_ERROR, "schema", "the document does not follow the schema",
     "An element or attribute is unknown, misplaced or missing. `archcheck schema` prints the "
     "XSD; point your editor at it for completion."},
    {"AC005", AC_SEV_ERROR, "input-limit", "the input exceeds a documented size limit",
     "Files are limited to 16 MiB, 100000 elements and 256 levels of nesting (the root "
     "element is level 1)."},
    {"AC006", AC_SEV_ERROR, "root-element", "the root element must be <architecture format=\"1\">",
     "archcheck reads format version 1. The root may declare xmlns=\"urn:archcheck:1\"."},
    {"AC010", AC_SEV_ERROR, "not-a-number", "a value is not a decimal number",
     "Numbers are decimal with an optional exponent (12, 0.5, 1e-4). nan, inf, hexadecimal and "
     "empty values are rejected."},
    {"AC011", AC_SEV_ERROR, "out-of-range", "a value is outside the range its quantity allows",
     "Probabilities lie in [0, 1] (or 0%..100%), counts and durations are not negative, factors "
     "and rates are positive where the format says so. A value that is not 0 is not too small "
     "to compute with: durations at least 1ns, rates at least 1e-9/s, factors and numbers at "
     "least 1e-9, probabilities at least 1e-15. Ids contain no invisible or bidirectional "
     "control character (zero-width spaces, direction overrides, BOM, C0/C1 controls)."},
    {"AC012", AC_SEV_ERROR, "duration-unit", "a duration lacks its unit",
     "Write durations with a unit: us, ms, s, min or h (120ms, 2.5s, 5min)."},
    {"AC013", AC_SEV_ERROR, "unknown-unit",
     "a value carries a unit that its quantity does not know",
     "Durations take us, ms, s, min or h; rates take /s, /min or /h (or none: per second); "
     "probabilities may end in %."},
    {"AC014", AC_SEV_ERROR, "not-a-count", "a count is not a non-negative integer",
     "Counts (servers, buffer, retries, amount, ...) are whole numbers such as 8 or 200."},
    {"AC015", AC_SEV_ERROR, "absurd-size", "a size is larger than archcheck can analyse",
     "Limits: servers and concurrency at most 1000000, buffer at most 100000 per server, "
     "population at most 10000000, fan-out and fan-in at most 10000, retries at most 100; "
     "rates at most 1e12/s, durations at most 1e9 s, factors and numbers at most 1e12. "
     "Larger values would exhaust memory or time; they are almost always a typo."},
    {"AC016", AC_SEV_ERROR, "bad-range", "a fault range is not LOW..HIGH with LOW <= HIGH",
     "Fault attributes are ranges in the attribute's own type, e.g. delay=\"0ms..2s\" or "
     "fail-prob=\"0..30%\"."},
    {"AC017", AC_SEV_ERROR, "bad-keyword", "a value is not one of the keywords allowed",
     "Enumerated attributes (dispatch, sampling, invocation, kind, metric, parallel, repeat) take "
     "one of the listed keywords, in lower case."},
    {"AC018", AC_SEV_ERROR, "attribute-combination",
     "attributes that must come together or exclude each other are inconsistent",
     "For example a pool needs exactly one of service-time and service-rate; autoscale min must "
     "not exceed max; d applies to power-of-d only."},
    {"AC020", AC_SEV_ERROR, "duplicate-id", "an id is used twice",
     "Every node, source, population, link and mitigation id must be unique in the file."},
    {"AC021", AC_SEV_ERROR, "unknown-reference", "a reference names no element of the file",
     "Check the spelling of the id; references are case-sensitive."},
    {"AC022", AC_SEV_ERROR, "wrong-kind-reference",
     "a reference names an element of a kind that does not make sense there",
     "Routes run between nodes (a source feeds its node through its own `to`); a fault attribute "
     "must exist on its target's kind; a mitigation must fit its target's kind."},
    {"AC023", AC_SEV_ERROR, "route-probability",
     "route probabilities out of one node sum to more than 1",
     "The p of the non-parallel routes leaving a node sum to at most 1; the rest leaves the "
     "system."},
    {"AC024", AC_SEV_ERROR, "unreachable-node", "a node receives no traffic",
     "Every node must be reachable by routes from a source or a population."},
    {"AC025", AC_SEV_ERROR, "profile-points",
     "a profile's points do not start at 0s or do not increase",
     "A profile has at least two points; the first is at 0s and each `at` is larger than the "
     "last."},
    {"AC026", AC_SEV_ERROR, "incompatible-mitigations",
     "mitigations that cannot be combined are combined",
     "For example snapstart and provisioned-concurrency on one function (AWS does not allow it), "
     "or a combine that includes itself."},
    {"AC027", AC_SEV_ERROR, "unknown-rule", "a suppression names a rule that does not exist",
     "`archcheck rules` lists every rule id."},
    {"AC028", AC_SEV_ERROR, "suppression-reason", "a suppression gives no reason",
     "Every <suppress> needs a non-empty reason; reports show it to reviewers."},
    {"AC029", AC_SEV_ERROR, "mitigation-attributes",
     "a mitigation lacks an attribute its kind needs, or has one that it does not use",
     "provisioned-concurrency, pre-warming and add-servers need amount; snapstart needs restore; "
     "rate-limit needs rate; retry-budget needs ratio; set needs attribute and value; combine "
     "needs of."},
    {"AC030", AC_SEV_ERROR, "duplicate-definition", "something that may appear once appears twice",
     "For example two <faults> elements, two profiles for one source, or two <requirements>."},
    {"AC031", AC_SEV_ERROR, "empty-architecture", "the architecture has no workload or no nodes",
     "Without a node, or without a source or a population, there is nothing to analyse and no "
     "requirement can be judged."},
    {"AC032", AC_SEV_ERROR, "routing-cycle", "the routes make jobs circulate forever",
     "The traffic equations have no finite solution: a cycle of routes sends every job back "
     "(probabilities summing to 1 around the loop, or fan-out growing around it). Let some of "
     "the traffic leave the cycle."},
    {"AC033", AC_SEV_WARNING, "unused-suppression", "a suppression matches no finding",
     "The rule does not fire on its target (any more): delete the <suppress>, or correct its "
     "rule or target, so that it does not silence a future finding unnoticed. Reported by "
     "check, which knows every finding."},
    {"AC101", AC_SEV_ERROR, "overload", "a node receives more work than it can serve",
     "The offered load is at or above capacity (utilisation >= 1): queues grow without bound or "
     "work is lost. Add servers, shorten the service time, or limit the incoming rate."},
    {"AC102", AC_SEV_ERROR, "unstable-equilibrium",
     "an equilibrium of the model has an eigenvalue with positive real part",
     "The steady state is not stable: small perturbations grow. Review the retry and timeout "
     "settings and the load of the node."},
    {"AC103", AC_SEV_ERROR, "metastable-failure",
     "a node has two stable equilibria: a burst can leave it stuck in a bad one",
     "A metastable failure mode: after a large enough burst, timeouts and retries keep the load "
     "high even when the burst is over. Cap retries (retry budget), lengthen the timeout, add "
     "capacity or shed load."},
    {"AC201", AC_SEV_ERROR, "latency-requirement", "a latency requirement is not met",
     "The mean or percentile response time exceeds the requirement's max."},
    {"AC202", AC_SEV_ERROR, "utilization-requirement", "a utilisation requirement is not met",
     "A node's utilisation exceeds the requirement's max."},
    {"AC203", AC_SEV_ERROR, "loss-requirement", "a loss requirement is not met",
     "The fraction of lost, throttled, dead-lettered or failed requests exceeds the max."},
    {"AC204", AC_SEV_ERROR, "throughput-requirement", "a throughput requirement is not met",
     "The completed request rate is below the requirement's min."},
    {"AC205", AC_SEV_ERROR, "headroom-requirement", "the design has less headroom than required",
     "The workload cannot grow by the required factor with stability and every latency, "
     "utilisation and loss requirement still met (below 1: something already fails today)."},
    {"AC206", AC_SEV_ERROR, "recovery-requirement", "the system does not recover in time",
     "After a burst or fault ends, the system is not back within its requirements within max."},
    {"AC207", AC_SEV_ERROR, "scaling-requirement", "autoscaling exceeds its event or cost budget",
     "Over the profile's horizon, the autoscaler makes more scaling actions or uses more server "
     "hours than allowed."},
    {"AC208", AC_SEV_WARNING, "autoscaler-flapping", "the autoscaler flaps",
     "A scale-up and a scale-down within one cooldown of each other, twice or more over the "
     "profile (per simulated replication, or in the fluid transient): the cooldown is too "
     "short or the tolerance too narrow for the load's noise."},
    {"AC301", AC_SEV_ERROR, "resilience-requirement",
     "the resilience boundary is below the minimum",
     "Under the worst-case faults found, the degradation score exceeds tau at a lower workload "
     "than min-boundary."},
    {"AC900", AC_SEV_WARNING, "inconclusive",
     "a check could not be decided: the verdict is INCONCLUSIVE",
     "The numbers cannot support a verdict: the analysis does not cover this case yet, did not "
     "converge, or the approximation's error straddles the limit. Run with --validate to settle "
     "it by simulation where available."},
    {"AC901", AC_SEV_NOTE, "approximation-range",
     "an approximation is used outside the range where it is accurate",
     "For example the mean field with few servers or a load near 1: the report states the "
     "expected error; simulation settles it."},
    {"AC902", AC_SEV_NOTE, "truncation", "an unbounded buffer was truncated for the analysis",
     "The queue-length distribution is truncated where its tail is below 1e-12; the dropped mass "
     "is reported."},
};

const ac_rule *ac_rule_find(const char *id)
{
    if (id == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].id, id) == 0)
            return &rules[i];
    return NULL;
}

const ac_rule *ac_rules_all(size_t *count)
{
    *count = sizeof rules / sizeof rules[0];
    return rules;
}
