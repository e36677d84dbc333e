#!/bin/sh
# Validate SARIF files against the SARIF 2.1.0 (rtm.5) JSON schema.
#
#   sh scripts/sarif-validate.sh FILE.sarif...      exit 0 when every file is valid
#   sh scripts/sarif-validate.sh --install          only install the validator
#
# The schema and the validator come from the npm registry, installed once into
# $SARIF_VALIDATOR_DIR (default build/sarif-validator): @microsoft/jest-sarif ships the
# official schema (lib/schemas/sarif-2.1.0-rtm.5.json) and depends on ajv 6 (draft-04).
# Needs node and npm. tests/test_report.c runs it when build/sarif-validator exists, or when
# AC_SARIF_VALIDATE names a validator command.
set -eu
dir=${SARIF_VALIDATOR_DIR:-build/sarif-validator}
if [ ! -f "$dir/node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json" ]; then
    command -v npm >/dev/null 2>&1 || { echo "sarif-validate: npm is needed" >&2; exit 2; }
    mkdir -p "$dir"
    (cd "$dir" && npm install --no-audit --no-fund --silent @microsoft/jest-sarif@1.0.0-beta.0 >&2)
fi
[ "${1:-}" = "--install" ] && exit 0
[ "$#" -gt 0 ] || { echo "usage: sarif-validate.sh FILE.sarif..." >&2; exit 2; }
NODE_PATH="$(cd "$dir" && pwd)/node_modules" node - "$@" <<'JS'
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const root = process.env.NODE_PATH;
const schema = JSON.parse(fs.readFileSync(
    path.join(root, '@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
const ajv = new Ajv({ schemaId: 'id', allErrors: true, format: 'full' });
ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
const validate = ajv.compile(schema);
let bad = 0;
for (const f of process.argv.slice(2)) {
    const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    if (validate(doc)) {
        console.log(`${f}: valid SARIF 2.1.0`);
    } else {
        bad++;
        console.log(`${f}: INVALID`);
        for (const e of validate.errors) console.log(`  ${e.dataPath} ${e.message}`);
    }
}
process.exit(bad ? 1 : 0);
JS
