#!/usr/bin/env bash
# Installs Neo4j's Cypher parser (npm @neo4j-cypher/language-support, the exact version pinned in
# package-lock.json) into tools/cypherlint/node_modules, for tests/test_cypher_neo4j_syntax.py.
# Idempotent: does nothing when the pinned version is already installed.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "tools/cypherlint/install.sh: node and npm are needed to check the .cypher files with Neo4j's" \
       "Cypher parser; install Node.js 20 or later (e.g. apt-get install nodejs npm)" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "tools/cypherlint/install.sh: Node.js $(node -v) is too old; 20 or later is needed" >&2
  exit 1
fi
# Up to date when every package of the lockfile is installed at its locked version.
if node -e '
  const lock = require("./package-lock.json").packages;
  for (const [dir, { version }] of Object.entries(lock))
    if (dir && require(`./${dir}/package.json`).version !== version) process.exit(1);
' 2>/dev/null; then
  exit 0
fi
# The package declares node >= 24 but runs on 20 (checked by the tests that the linter can fail).
npm ci --silent --no-audit --no-fund --loglevel=error --engine-strict=false >/dev/null
