#!/bin/sh
# Instructions per event of archcheck's simulator and of the hand-written reference
# (bench/sim_ref.c) on the 100-server power-of-two pool, counted by callgrind (exact
# where the wall clock of a shared machine is not). Usage: sim_instructions.sh SIM_BENCH
# [HORIZON_S] (default 2000 s: 360,000 events; setup is under 1%). The figure is also a row
# of the benchmark table, appended to $AC_BENCH_ROWS (bench/README.md).
set -eu
bench=$1
horizon=${2:-2000}
tmp=${TMPDIR:-/tmp}/sim_instructions.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
if ! command -v valgrind >/dev/null 2>&1; then
    echo "sim instructions/event: valgrind not installed (skipped)"
    exit 0
fi
count() { # $1: archcheck|ref -> "instructions events"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" "$bench" --only "$1" 100 0.9 \
        "$horizon" >"$tmp/out.$1" 2>"$tmp/err.$1"
    ir=$(sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' "$tmp/err.$1")
    ev=$(sed -n 's/^events \([0-9]*\)$/\1/p' "$tmp/out.$1")
    echo "$ir $ev"
}
set -- $(count archcheck) $(count ref)
awk -v ai="$1" -v ae="$2" -v ri="$3" -v re="$4" -v rows="${AC_BENCH_ROWS:-}" 'BEGIN {
    a = ai / ae; r = ri / re
    printf "sim instructions/event          %7.1f (reference %.1f: %.2fx)   goal <= 1.5x  %s\n",
           a, r, a / r, (a <= 1.5 * r) ? "met" : "missed"
    if (rows != "")
        printf "simulator instructions/event, 100-server power-of-two pool|%.1f|instructions/event||1.5x reference|INFO|callgrind; bench/sim_ref.c %.1f (archcheck / reference %.2fx); %d and %d events\n",
               a, r, a / r, ae, re >> rows
}'
