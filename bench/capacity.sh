#!/bin/sh
# Capacity planning benchmarks (wall time on this machine, one run each):
#   - `archcheck size` of every sample (no floor: printed for the record);
#   - `archcheck tune` of samples/daily-web-tier.xml with the default budget (300 transient
#     evaluations of a 24-h profile): floor 30 s of wall time.
# Prints one line per run: input, wall seconds, exit status. Exit 1 when tune misses its floor.
#
# usage: capacity.sh ARCHCHECK SOURCE_DIR
set -u
bin=$1
src=$2
now() { date +%s.%N; }
status=0
printf '%-24s %-6s %10s  %s\n' input cmd wall_s exit
for f in "$src"/samples/*.xml; do
    t0=$(now)
    "$bin" size --format json "$f" > /dev/null 2>&1
    rc=$?
    t1=$(now)
    printf '%-24s %-6s %10.2f  %d\n' "$(basename "$f" .xml)" size "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" "$rc"
done
t0=$(now)
"$bin" tune "$src/samples/daily-web-tier.xml" > /dev/null 2>&1
rc=$?
t1=$(now)
wall=$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")
printf '%-24s %-6s %10.2f  %d   (floor 30 s)\n' daily-web-tier tune "$wall" "$rc"
if awk -v w="$wall" "BEGIN{exit !(w > 30)}"; then
    echo "tune of daily-web-tier took ${wall} s: above its 30 s floor" >&2
    status=1
fi
exit $status
