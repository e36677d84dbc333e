#!/bin/sh
# Capacity planning benchmarks (one run each), rows to $AC_BENCH_ROWS (bench/README.md):
#   - `archcheck size` of every sample (no floor: INFO rows, for the record);
#   - `archcheck tune` of samples/daily-web-tier.xml with the default budget (300 transient
#     evaluations of a 24-h profile, one thread): floor 30 s. tune runs on one thread, so its
#     processor time (user + system) is the wall time it takes on an idle machine; the floor
#     is judged on it, as bench_check.sh judges the samples' check, and the wall time of the
#     run (inflated on a shared machine) is in the detail column.
# Exit status 1 a run failed (exit 2, a signal) or tune missed its floor, else 0. tune exits
# 0 (confirmed by simulation) or 3 (not confirmed: its day does not fit the event budget),
# size 0, 1 or 3: those are results, not failures.
#
# usage: capacity.sh ARCHCHECK SOURCE_DIR
set -u
bin=$1
src=$2
rows=${AC_BENCH_ROWS:-/dev/null}
tf=$(mktemp "${TMPDIR:-/tmp}/capacity.XXXXXX")
trap 'rm -f "$tf"' EXIT
# run CMD...: the command's exit status in $rc, its CPU seconds in $cpu, wall seconds in $wall
run() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "%U %S %e" -o "$tf" "$@" > /dev/null 2>&1
        rc=$?
        cpu=$(awk 'END{ if (NF >= 3) printf "%.2f", $(NF-2) + $(NF-1); else print "-" }' "$tf")
        wall=$(awk 'END{ if (NF >= 3) printf "%.2f", $NF; else print "-" }' "$tf")
    else
        t0=$(date +%s.%N)
        "$@" > /dev/null 2>&1
        rc=$?
        wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b - a}')
        cpu=-
    fi
}
failed() { [ "$1" -eq 2 ] || [ "$1" -gt 3 ]; }
status=0
printf '%-24s %-6s %10s %10s  %s\n' input cmd wall_s cpu_s exit
for f in "$src"/samples/*.xml; do
    name=$(basename "$f" .xml)
    run "$bin" size --format json "$f"
    st=INFO
    if failed "$rc"; then st=FAIL; status=1; fi
    echo "size samples/$name.xml: user+sys|$cpu|s|||$st|one run, wall $wall s, exit $rc" >> "$rows"
    printf '%-24s %-6s %10s %10s  %d\n' "$name" size "$wall" "$cpu" "$rc"
done
run "$bin" tune "$src/samples/daily-web-tier.xml"
val=$cpu
[ "$val" = - ] && val=$wall
st=$(awk -v t="$val" 'BEGIN { print (t <= 30.0) ? "PASS" : "MISS" }')
if failed "$rc"; then st=FAIL; fi
[ "$st" = PASS ] || status=1
echo "tune samples/daily-web-tier.xml, default budget, one thread: user+sys|$val|s|30 s||$st|one run, wall $wall s, exit $rc" >> "$rows"
printf '%-24s %-6s %10s %10s  %d   (floor 30 s of processor time, one thread)\n' daily-web-tier \
    tune "$wall" "$cpu" "$rc"
[ "$st" = PASS ] || echo "tune of daily-web-tier: $val s (user+sys): above its 30 s floor or failed" >&2
exit $status
