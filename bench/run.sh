#!/bin/sh
# Runs one compiled benchmark entry point: `sh bench/run.sh harness/http.js` (from the repository
# root, as the root package.json's bench:* scripts do). Installs bench/'s own dependencies when
# they are missing, compiles bench/src (incrementally) into bench/node_modules/.cache, where
# ESLint and Prettier never look, and runs the entry from bench/.
set -eu
cd "$(dirname "$0")"
if [ ! -f ../dist/index.js ]; then
  echo "bench: the library is not built; run \`npm ci && npm run build\` at the repository root first." >&2
  exit 1
fi
if [ ! -f node_modules/@rekog/mcp-nest/package.json ] || [ ! -f node_modules/autocannon/package.json ] \
  || [ ! -f node_modules/fastmcp/package.json ]; then
  npm ci --no-audit --no-fund
fi
../node_modules/.bin/tsc -p tsconfig.json
export NODE_ENV="${NODE_ENV:-production}"
entry="$1"
shift
exec node "node_modules/.cache/toolwright-bench/$entry" "$@"
