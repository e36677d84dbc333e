#!/usr/bin/env python3
"""Validate archcheck's exports against the published formats (standard library only).

  validate_exports.py fis FILE.json        an AWS FIS experiment template, as
                                           `aws fis create-experiment-template --cli-input-json`
                                           takes it (CreateExperimentTemplate request syntax,
                                           fis-2020-12-01: description, stopConditions,
                                           actions, targets, roleArn, tags)
  validate_exports.py chaostoolkit FILE.json  a Chaos Toolkit experiment (the Open API for
                                           Chaos Engineering Experiments and chaostoolkit-lib's
                                           ensure_experiment_is_valid: title, description,
                                           method of activities with python providers,
                                           rollbacks, extensions with a name, configuration,
                                           and the steady-state-hypothesis the spec requires:
                                           a title and probes, each with a tolerance)

Required keys and their types are checked, and the references inside a document (an action's
target, startAfter, ${configuration} substitutions). Exit 0 when valid, 1 with one line per
problem on stderr.
"""
import json
import re
import sys

ISO_DURATION = re.compile(r"^PT(\d+H)?(\d+M)?(\d+S)?$")
SELECTION = re.compile(r"^(ALL|COUNT\(\d+\)|PERCENT\(\d+\))$")


def is_str_map(x):
    return isinstance(x, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in x.items())


def fis(doc, err):
    for key, kind in (("description", str), ("stopConditions", list), ("actions", dict),
                      ("roleArn", str)):
        if not isinstance(doc.get(key), kind):
            err.append("missing or not a %s: %s" % (kind.__name__, key))
    if len(doc.get("description", "")) > 512:
        err.append("description longer than 512 characters")
    if not str(doc.get("roleArn", "")).startswith("arn:aws:iam::"):
        err.append("roleArn is not an IAM role ARN")
    for sc in doc.get("stopConditions", []):
        if not isinstance(sc, dict) or not isinstance(sc.get("source"), str):
            err.append("a stop condition without a source")
        elif sc["source"] != "none" and not isinstance(sc.get("value"), str):
            err.append("a CloudWatch stop condition without a value")
    targets = doc.get("targets", {})
    if not isinstance(targets, dict):
        err.append("targets is not an object")
        targets = {}
    for name, t in targets.items():
        if not isinstance(t, dict) or not isinstance(t.get("resourceType"), str):
            err.append("target %s: no resourceType" % name)
            continue
        if not SELECTION.match(str(t.get("selectionMode", ""))):
            err.append("target %s: selectionMode %r" % (name, t.get("selectionMode")))
        if "resourceTags" in t and not is_str_map(t["resourceTags"]):
            err.append("target %s: resourceTags is not a map of strings" % name)
        if "resourceTags" not in t and "resourceArns" not in t and "filters" not in t:
            err.append("target %s: no resourceTags, resourceArns or filters" % name)
    actions = doc.get("actions", {}) if isinstance(doc.get("actions"), dict) else {}
    if not actions:
        err.append("no action")
    for name, a in actions.items():
        if not isinstance(a, dict) or not re.match(r"^aws:[a-z0-9-]+:[a-z0-9-]+$",
                                                   str(a.get("actionId", ""))):
            err.append("action %s: actionId %r" % (name, a.get("actionId")))
            continue
        if "parameters" in a and not is_str_map(a["parameters"]):
            err.append("action %s: parameters must map strings to strings" % name)
        dur = a.get("parameters", {}).get("duration")
        if dur is not None and not ISO_DURATION.match(dur):
            err.append("action %s: duration %r is not an ISO 8601 duration" % (name, dur))
        if "targets" in a:
            if not is_str_map(a["targets"]):
                err.append("action %s: targets must map strings to strings" % name)
            else:
                for ref in a["targets"].values():
                    if ref not in targets:
                        err.append("action %s: target %s is not declared" % (name, ref))
        for after in a.get("startAfter", []):
            if after not in actions:
                err.append("action %s: startAfter %s is not an action" % (name, after))
    if "tags" in doc and not is_str_map(doc["tags"]):
        err.append("tags must map strings to strings")


def activity(act, where, err):
    if not isinstance(act, dict):
        err.append("%s: not an object" % where)
        return
    if "ref" in act:
        return
    if act.get("type") not in ("action", "probe"):
        err.append("%s: type %r" % (where, act.get("type")))
    if not isinstance(act.get("name"), str) or not act.get("name"):
        err.append("%s: no name" % where)
    prov = act.get("provider")
    if not isinstance(prov, dict) or prov.get("type") not in ("python", "http", "process"):
        err.append("%s: provider type" % where)
        return
    if prov["type"] == "python":
        for key in ("module", "func"):
            if not isinstance(prov.get(key), str) or not prov.get(key):
                err.append("%s: python provider without %s" % (where, key))
    if "arguments" in prov and not isinstance(prov["arguments"], dict):
        err.append("%s: arguments is not an object" % where)
    for key, v in act.get("pauses", {}).items():
        if key not in ("before", "after") or not isinstance(v, (int, float)):
            err.append("%s: pause %s" % (where, key))


def tolerance(tol, where, err):
    """A probe's tolerance (the spec: a boolean, a number, a string, a list, or an object of
    type range [lo, hi], regex, jsonpath or probe)."""
    if isinstance(tol, (bool, int, float, str, list)):
        return
    if not isinstance(tol, dict) or tol.get("type") not in ("range", "regex", "jsonpath",
                                                             "probe"):
        err.append("%s: tolerance %r" % (where, tol))
        return
    if tol["type"] == "range":
        r = tol.get("range")
        if (not isinstance(r, list) or len(r) != 2 or
                not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in r) or
                r[0] > r[1]):
            err.append("%s: a range tolerance needs [low, high] numbers, low <= high" % where)
    elif tol["type"] in ("regex", "jsonpath") and not isinstance(tol.get("pattern", tol.get("path")), str):
        err.append("%s: a %s tolerance without its pattern" % (where, tol["type"]))


def hypothesis(ssh, err):
    if not isinstance(ssh, dict):
        err.append("a steady-state-hypothesis (an object) is required")
        return
    if not isinstance(ssh.get("title"), str) or not ssh.get("title"):
        err.append("steady-state-hypothesis: no title")
    probes = ssh.get("probes")
    if not isinstance(probes, list) or not probes:
        err.append("steady-state-hypothesis: at least one probe is required")
        probes = []
    for i, p in enumerate(probes):
        where = "steady-state-hypothesis.probes[%d]" % i
        activity(p, where, err)
        if isinstance(p, dict) and "ref" not in p:
            if p.get("type") != "probe":
                err.append("%s: not a probe" % where)
            if "tolerance" not in p:
                err.append("%s: no tolerance" % where)
            else:
                tolerance(p["tolerance"], where, err)


def chaostoolkit(doc, err):
    for key in ("title", "description"):
        if not isinstance(doc.get(key), str) or not doc.get(key):
            err.append("missing %s" % key)
    for tag in doc.get("tags", []):
        if not isinstance(tag, str) or not tag:
            err.append("a tag that is not a non-empty string")
    for ext in doc.get("extensions", []):
        if not isinstance(ext, dict) or not isinstance(ext.get("name"), str):
            err.append("an extension without a name")
    config = doc.get("configuration", {})
    if not isinstance(config, dict):
        err.append("configuration is not an object")
        config = {}
    for key, v in config.items():
        if isinstance(v, dict) and v.get("type") == "env" and not isinstance(v.get("key"), str):
            err.append("configuration %s: env without a key" % key)
    hypothesis(doc.get("steady-state-hypothesis"), err)
    method = doc.get("method")
    if not isinstance(method, list) or not method:
        err.append("a method with at least one activity is required")
        method = []
    for i, act in enumerate(method):
        activity(act, "method[%d]" % i, err)
    for i, act in enumerate(doc.get("rollbacks", [])):
        activity(act, "rollbacks[%d]" % i, err)
    ssh = doc.get("steady-state-hypothesis")
    probes = ssh.get("probes", []) if isinstance(ssh, dict) else []
    probes = probes if isinstance(probes, list) else []
    for name in re.findall(r"\$\{([^}]+)\}",
                           json.dumps(method + doc.get("rollbacks", []) + probes)):
        if name not in config and name not in doc.get("secrets", {}):
            err.append("${%s} is neither configuration nor a secret" % name)


def main(argv):
    if len(argv) != 3 or argv[1] not in ("fis", "chaostoolkit"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(argv[2], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (argv[2], e), file=sys.stderr)
        return 1
    err = []
    if not isinstance(doc, dict):
        err.append("not a JSON object")
    elif argv[1] == "fis":
        fis(doc, err)
    else:
        chaostoolkit(doc, err)
    for e in err:
        print("%s: %s" % (argv[2], e), file=sys.stderr)
    return 1 if err else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
