#!/bin/sh
# make valgrind: representative end-to-end runs of the archcheck binary under valgrind
# (memcheck, --leak-check=full): every command (lint, check in each format and with a PDF
# report, solve and its transient, simulate on a small budget, compare, rules), the error
# paths of hostile input (an entity bomb, UTF-7, a FIFO, a full stdout) and the output
# targets (a symbolic link). A small model with bounded buffers keeps the whole under about
# three minutes. Fails (exit 1) on any memory error or leak, or an unexpected exit status.
#
#   sh scripts/valgrind.sh BIN
set -u
bin=${1:?usage: valgrind.sh BIN}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind: not installed (Debian package valgrind; scripts/deps.sh installs it)" >&2
    exit 1
fi
tmp=$(mktemp -d /tmp/ac_valgrindXXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

cat > "$tmp/small.xml" <<'EOF'
<architecture name="small" format="1">
  <workload>
    <source id="users" to="web" rate="20/s"/>
  </workload>
  <pool id="web" servers="2" service-time="20ms" buffer="10"/>
  <pool id="db" servers="1" service-time="5ms" buffer="20"/>
  <route from="web" to="db" p="0.5"/>
  <mitigation id="more" kind="add-servers" target="web" amount="1"/>
  <requirements>
    <latency target="web" percentile="99" max="500ms"/>
    <utilization target="db" max="0.8"/>
  </requirements>
</architecture>
EOF
printf '<?xml version="1.0" encoding="UTF-7"?>\n+ADw-!DOCTYPE a+AD4-<architecture format="1"/>\n' \
    > "$tmp/utf7.xml"
mkfifo "$tmp/fifo.xml"
: > "$tmp/real.json"
ln -s real.json "$tmp/link.json"

n=0
failed=0
# run EXPECTED_STATUS [<STDOUT] ARGS...: one command under valgrind
run() {
    want=$1
    shift
    out=/dev/null
    case $1 in
    '>'*) out=${1#>}; shift ;;
    esac
    n=$((n + 1))
    log="$tmp/vg.$n.log"
    valgrind -q --error-exitcode=99 --leak-check=full --log-file="$log" \
        "$bin" "$@" > "$out" 2>> "$tmp/stderr.log"
    st=$?
    if [ "$st" -ne "$want" ] || [ -s "$log" ]; then
        echo "valgrind: FAILED (exit $st, expected $want): archcheck $*" >&2
        cat "$log" >&2
        failed=$((failed + 1))
    else
        echo "valgrind: ok: archcheck $*"
    fi
}

s=$tmp/small.xml
run 0 lint "$s"
run 0 lint -f sarif "$s"
run 2 lint samples/bad/AC003-entity-bomb.xml
run 2 lint samples/bad/AC026-snapstart-provisioned.xml
run 2 lint samples/bad/AC011-invisible-id.xml
run 2 lint samples/bad/AC032-circulating-routes.xml
run 2 check samples/bad/AC031-no-nodes.xml
run 2 lint "$tmp/utf7.xml"
run 2 lint "$tmp/fifo.xml"
run 0 check --no-validate "$s"
run 0 check -f json -o "$tmp/link.json" "$s"
run 0 check --no-validate -f junit "$s"
run 0 check --no-validate --report "$tmp/report.pdf" "$s"
run 0 solve "$s"
run 0 solve -f csv "$s"
run 0 solve --transient --horizon 10s "$s"
run 0 simulate --max-events 20000 "$s"
run 0 compare --no-validate "$s"
run 0 rules
run 2 '>/dev/full' rules
run 2 '>/dev/full' solve "$s"

[ -L "$tmp/link.json" ] || { echo "valgrind: the symbolic link was replaced" >&2; failed=$((failed + 1)); }
echo "valgrind: $n runs, $failed failed"
[ "$failed" -eq 0 ]
