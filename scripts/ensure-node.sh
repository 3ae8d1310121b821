#!/usr/bin/env bash
# Make sure Node and the Node test clients (tests/node: the AI SDK, the MCP TypeScript SDK, React,
# esbuild, pinned in tests/node/package-lock.json) are installed, for tests/clients.
# Idempotent: `npm ci` runs only when the lock file changed since the last install. Installs Debian's
# nodejs and npm when node is missing and this shell may install packages. Fails when it cannot:
# `make test` runs the Node tests as required (TASKCHAT_NODE_REQUIRED=1), so CI never passes without them.
set -euo pipefail

DIR="$(cd "$(dirname "$0")/.." && pwd)/tests/node"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif sudo -n true 2>/dev/null; then SUDO=sudo; else
    echo "ensure-node: node/npm missing and this shell cannot install packages (apt-get install nodejs npm)" >&2
    exit 1
  fi
  echo "ensure-node: installing Debian's nodejs and npm"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi

major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 18 ]; then
  echo "ensure-node: node $(node --version) is too old; the AI SDK needs 18 or later" >&2
  exit 1
fi

want="$(sha256sum "$DIR/package-lock.json" | cut -c1-16)"
stamp="$DIR/node_modules/.installed-$want"
if [ -f "$stamp" ]; then
  exit 0
fi
for attempt in 1 2 3; do
  if (cd "$DIR" && npm ci --no-audit --no-fund --loglevel=error); then
    touch "$stamp"
    echo "ensure-node: tests/node installed from its lock ($(node --version))"
    exit 0
  fi
  echo "ensure-node: npm ci failed (attempt $attempt)" >&2
  sleep $((attempt * 5))
done
exit 1
