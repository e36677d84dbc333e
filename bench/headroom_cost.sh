#!/bin/sh
# The cost of `check` (headroom search included) in instructions, counted by callgrind
# (deterministic where wall time on a loaded machine is not): every sample, and a chain of
# N pools (default 1000; the hostile-input suite's case of issue #13: 10/s into n0, each hop
# going on with p = 0.999, pool i serving at 10 x 0.999^i + 26.9 per s, a p95 <= 30 s
# requirement). Prints one line per input: instructions, the headroom factor and binding.
#
# usage: headroom_cost.sh ARCHCHECK SOURCE_DIR [N]     (needs valgrind; minutes per input)
set -eu
bin=$1
src=$2
n=${3:-1000}
tmp=$(mktemp -d /tmp/ac_bench_headroomXXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
awk -v n="$n" 'BEGIN {
    print "<architecture name=\"chain\" format=\"1\">";
    print "<workload><source id=\"s\" to=\"n0\" rate=\"10/s\"/></workload>";
    for (i = 0; i < n; i++) printf "<pool id=\"n%d\" servers=\"1\" service-rate=\"%.17g/s\"/>\n", i, 10 * 0.999 ^ i + 26.9;
    for (i = 0; i + 1 < n; i++) printf "<route from=\"n%d\" to=\"n%d\" p=\"0.999\"/>\n", i, i + 1;
    print "<requirements><latency percentile=\"95\" max=\"30s\"/></requirements>";
    print "</architecture>" }' > "$tmp/chain$n.xml"
printf '%-22s %16s  %s\n' input instructions headroom
for f in "$src"/samples/*.xml "$tmp/chain$n.xml"; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$bin" check --format json "$f" \
        > "$tmp/out.json" 2> "$tmp/cg.log" || true
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.log")
    hr=$(grep -o '"headroom":{[^}]*}' "$tmp/out.json" || echo none)
    printf '%-22s %16s  %s\n' "$(basename "$f" .xml)" "$ir" "$hr"
done
