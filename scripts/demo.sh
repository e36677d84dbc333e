#!/bin/sh
# make demo: check a sample architecture and show the verdict.
set -u
bin=${1:-build/archcheck}
sample=samples/web-tier.xml
echo "== archcheck check $sample"
"$bin" check "$sample"
status=$?
echo "== exit status $status (0 pass, 1 fail, 2 invalid input, 3 inconclusive)"
mkdir -p build/demo
"$bin" check --format json -o build/demo/web-tier.json "$sample" >/dev/null
"$bin" check --format sarif -o build/demo/web-tier.sarif "$sample" >/dev/null
echo "== JSON and SARIF written to build/demo/web-tier.json and build/demo/web-tier.sarif"
exit 0
