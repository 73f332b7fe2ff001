#!/usr/bin/env bash
# Installs Neo4j's Cypher parser (npm) for tests/test_cypher_neo4j_syntax.py. Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
command -v npm >/dev/null || { echo "npm is missing: install Node.js 20+ to check Cypher syntax" >&2; exit 1; }
npm ci --silent --no-audit --no-fund --loglevel=error
