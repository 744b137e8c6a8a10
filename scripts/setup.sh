#!/usr/bin/env bash
# Sets up a fresh machine for Vigil: Debian packages (Chromium, ripgrep, Kerberos headers, git),
# npm packages, code-server and the real ACP agents in .vscode-test/. Safe to run again: it skips what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(chromium ripgrep libkrb5-dev python3 make g++ procps git strace)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "Installing Debian packages: ${missing[*]}"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
bash scripts/installCodeServer.sh >/dev/null
# The real ACP agents the real-agent tests run offline (pinned in scripts/agents/).
node scripts/installAgents.mjs
echo "setup: ready"
