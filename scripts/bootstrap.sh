#!/usr/bin/env bash
# Installs what KeepGraph needs on a fresh Debian machine of this kind:
# pnpm (through npm, since corepack's signature check fails against the
# registry here), the workspace dependencies, and the local embedding models.
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."

# onnxruntime-node would otherwise try to download CUDA binaries on install.
export ONNXRUNTIME_NODE_INSTALL_CUDA=skip

if ! command -v pnpm >/dev/null 2>&1 || [[ "$(pnpm --version)" != 9.* ]]; then
  echo "[bootstrap] installing pnpm 9"
  npm i -g pnpm@9 >/dev/null
fi

# better-sqlite3 builds from source when no prebuilt binary can be fetched.
if ! command -v make >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
  echo "[bootstrap] installing build tools"
  apt-get update -qq && apt-get install -y -qq build-essential python3 >/dev/null
fi

# Java 17 and Maven build the Neo4j test server.
if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  echo "[bootstrap] installing Java 17 and Maven"
  apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
fi

echo "[bootstrap] installing workspace dependencies"
pnpm install --frozen-lockfile --reporter=silent

bash scripts/setup-models.sh
