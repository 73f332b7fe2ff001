#!/usr/bin/env bash
# Installs what tests/test_webapp_browser.py needs: Debian's chromium and the npm package
# playwright-core (which drives it; it downloads no browser of its own). Idempotent.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium >/dev/null
fi
command -v npm >/dev/null || { echo "npm is missing: install Node.js 20+ for the browser test" >&2; exit 1; }
npm ci --silent --no-audit --no-fund --loglevel=error
