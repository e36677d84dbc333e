#!/bin/sh
# Run every test program given, even when one fails, and total their test cases.
# Each program is a cmocka group run with TAP output; a program that dies without
# reporting counts as one failure. Ends with "N passed, N failed"; exit 1 if any failed.
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT INT TERM
for t in "$@"; do
    echo "== $t"
    CMOCKA_MESSAGE_OUTPUT=tap "$t" > "$log" 2>&1
    status=$?
    cat "$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep '^not ok ' "$log" | grep -vc '# SKIP')
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $t exited with status $status"
        f=1
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "not ok - $t ran no test"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
