#!/bin/sh
# Capacity planning benchmarks (one run each):
#   - `archcheck size` of every sample (no floor: printed for the record);
#   - `archcheck tune` of samples/daily-web-tier.xml with the default budget (300 transient
#     evaluations of a 24-h profile): floor 30 s of wall time.
# Prints one line per run: input, command, wall seconds, CPU seconds (user + system, from
# /usr/bin/time when present, else "-"), exit status. On a loaded machine the wall time is
# inflated and the CPU seconds are the figure to compare. Exit 1 when tune misses its floor.
#
# usage: capacity.sh ARCHCHECK SOURCE_DIR
set -u
bin=$1
src=$2
now() { date +%s.%N; }
tf=$(mktemp "${TMPDIR:-/tmp}/capacity.XXXXXX")
trap 'rm -f "$tf"' EXIT
# run CMD...: the command's exit status in $rc, its CPU seconds in $cpu
run() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S" -o "$tf" "$@" > /dev/null 2>&1
        rc=$?
        cpu=$(awk 'END{ if (NF >= 2) printf "%.2f", $(NF-1) + $NF; else print "-" }' "$tf")
    else
        "$@" > /dev/null 2>&1
        rc=$?
        cpu=-
    fi
}
status=0
printf '%-24s %-6s %10s %10s  %s\n' input cmd wall_s cpu_s exit
for f in "$src"/samples/*.xml; do
    t0=$(now)
    run "$bin" size --format json "$f"
    t1=$(now)
    printf '%-24s %-6s %10.2f %10s  %d\n' "$(basename "$f" .xml)" size \
        "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" "$cpu" "$rc"
done
t0=$(now)
run "$bin" tune "$src/samples/daily-web-tier.xml"
t1=$(now)
wall=$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")
printf '%-24s %-6s %10.2f %10s  %d   (floor 30 s wall)\n' daily-web-tier tune "$wall" "$cpu" "$rc"
if awk -v w="$wall" "BEGIN{exit !(w > 30)}"; then
    echo "tune of daily-web-tier took ${wall} s: above its 30 s floor" >&2
    status=1
fi
exit $status
