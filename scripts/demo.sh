#!/bin/sh
# make demo: check a sample architecture, show the verdict and write its reports.
set -u
bin=${1:-build/archcheck}
sample=${2:-samples/retry-storm.xml}
out=build/demo
mkdir -p "$out"
echo "== archcheck check $sample"
"$bin" check --report "$out/report.pdf" "$sample"
status=$?
echo "== exit status $status (0 pass, 1 fail, 2 invalid input, 3 inconclusive)"
"$bin" check --format json -o "$out/report.json" "$sample" >/dev/null
"$bin" check --format sarif -o "$out/report.sarif" "$sample" >/dev/null
if [ -f "$out/report.pdf" ]; then
    echo "== the report: $(pwd)/$out/report.pdf"
    echo "   (also $out/report.json and $out/report.sarif)"
else
    echo "== no report was written" >&2
    exit 1
fi
exit 0
