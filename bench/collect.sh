#!/bin/sh
# The one benchmark table: gathers the rows the bench programs appended to ROWS (format in
# bench/README.md: figure|value|unit|floor|goal|status[|detail]) into OUT/table.md and
# OUT/table.csv, headed by the date, the machine, the compiler and the library versions, and
# puts the markdown table into README between the markers
#     <!-- bench-table:begin -->  and  <!-- bench-table:end -->
# (README "-": no copy). A line that is not a row (fewer than 6 fields) is ignored.
#
# usage: collect.sh ROWS OUT README
set -eu
rows=$1
out=$2
readme=${3:--}
mkdir -p "$out"
date_utc=$(date -u '+%Y-%m-%d %H:%M UTC')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
cc_version=$(${CC:-cc} --version 2>/dev/null | head -n 1)
libs=$(dpkg-query -W -f='${Package} ${Version}, ' libgsl-dev libxml2-dev libsuitesparse-dev \
    libsundials-dev libhpdf-dev 2>/dev/null | sed 's/, $//')
[ -f "$rows" ] || : > "$rows"

# markdown
{
    echo "Benchmarks of $date_utc (\`make bench\`): $(uname -sm), ${cpu:-unknown CPU} ($cores cores, load $load);"
    echo "$cc_version; ${libs:-library versions unknown}."
    echo
    echo "| figure | value | unit | floor | goal | status | detail |"
    echo "|---|---:|---|---|---|---|---|"
    awk -F'|' 'NF >= 6 && $1 !~ /^#/ {
        printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, (NF >= 7 ? $7 : "")
    }' "$rows"
    echo
    awk -F'|' 'NF >= 6 && $1 !~ /^#/ { n++; if ($6 == "PASS") p++; else if ($6 == "MISS") m++; else if ($6 == "FAIL") f++; else i++ }
        END { printf "%d figures: %d floors met, %d missed, %d failed to run, %d without a floor.\n", n, p, m, f, i }' "$rows"
} > "$out/table.md"

# CSV (RFC 4180: fields quoted, quotes doubled); the header rows first as comments
{
    echo "# date,$date_utc"
    echo "# machine,\"$(uname -sm) $cpu ($cores cores)\""
    echo "# compiler,\"$cc_version\""
    echo "# libraries,\"$libs\""
    echo "figure,value,unit,floor,goal,status,detail"
    awk -F'|' 'function q(s) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
        NF >= 6 && $1 !~ /^#/ {
        printf "%s,%s,%s,%s,%s,%s,%s\n", q($1), $2, q($3), q($4), q($5), $6, q(NF >= 7 ? $7 : "")
    }' "$rows"
} > "$out/table.csv"

cat "$out/table.md"
echo "written: $out/table.md, $out/table.csv"

if [ "$readme" != "-" ] && [ -f "$readme" ] && grep -q '<!-- bench-table:begin -->' "$readme"; then
    tmp=$(mktemp "$readme.XXXXXX")
    awk -v table="$out/table.md" '
        /<!-- bench-table:begin -->/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
        /<!-- bench-table:end -->/ { skip = 0 }
        !skip { print }' "$readme" > "$tmp"
    mv "$tmp" "$readme"
    echo "copied into $readme"
fi
