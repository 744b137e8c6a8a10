#!/usr/bin/env bash
# Installs code-server (a real VS Code workbench) from the npm registry into .vscode-test/,
# idempotently, with the fixes it needs on a machine without GitHub access. Prints its folder.
set -euo pipefail

version="${VIGIL_CODE_SERVER_VERSION:-4.100.3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.vscode-test/code-server-$version"
pkg="$dir/node_modules/code-server"
marker="$dir/.installed"

if [ -f "$marker" ] && [ -f "$pkg/out/node/entry.js" ]; then
  echo "$pkg"
  exit 0
fi

for tool in rg node npm; do
  command -v "$tool" >/dev/null || { echo "installCodeServer: '$tool' is missing; run: apt-get install -y ripgrep chromium libkrb5-dev" >&2; exit 1; }
done

log="$dir/install.log"
mkdir -p "$dir"
echo "Installing code-server $version into $dir (log: $log)…" >&2
rm -rf "$dir/node_modules"
# npm 11 runs no dependency install scripts unless allowed; argon2 (password hashing, unused with
# --auth none but loaded at start) is code-server's only top-level native module.
echo '{ "private": true, "allowScripts": { "argon2": true } }' > "$dir/package.json"
(cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --no-save "code-server@$version") >"$log" 2>&1
# argon2's node-pre-gyp finds no prebuilt binary offline and falls back to building from source.
(cd "$dir" && npm_config_nodedir=/usr npm rebuild argon2) >>"$log" 2>&1 || { echo "installCodeServer: building argon2 failed; see $log" >&2; exit 1; }

shrinkwrap="$pkg/lib/vscode/npm-shrinkwrap.json"

# Fix 2 (4.96.x): the shrinkwrap resolves @vscode/proxy-agent to a GitHub URL; the same version's
# registry tarball has the same integrity hash.
node - "$shrinkwrap" <<'JS'
const fs = require('fs');
const file = process.argv[2];
const wrap = JSON.parse(fs.readFileSync(file, 'utf8'));
let changed = false;
for (const [key, entry] of Object.entries(wrap.packages ?? {})) {
  const name = key.replace(/^.*node_modules\//, '');
  if (entry && typeof entry.resolved === 'string' && !entry.resolved.startsWith('https://registry.npmjs.org/') && entry.version && key.includes('node_modules/')) {
    const base = name.startsWith('@') ? name.split('/')[1] : name;
    entry.resolved = `https://registry.npmjs.org/${name}/-/${base}-${entry.version}.tgz`;
    changed = true;
  }
}
if (changed) fs.writeFileSync(file, JSON.stringify(wrap, null, 2));
JS

# Fix 3: @vscode/ripgrep's postinstall downloads rg from GitHub; pre-seed its cache with Debian's rg.
rg_version="$(node -e "const w=require(process.argv[1]); console.log(w.packages['node_modules/@vscode/ripgrep'].version)" "$shrinkwrap")"
tmp_root="${TMPDIR:-/tmp}"
cache="$tmp_root/vscode-ripgrep-cache-$rg_version"
mkdir -p "$cache"
staging="$(mktemp -d)"
cp "$(command -v rg)" "$staging/rg"
for asset in ripgrep-v13.0.0-10-x86_64-unknown-linux-musl ripgrep-v13.0.0-13-x86_64-unknown-linux-musl ripgrep-v14.1.1-1-x86_64-unknown-linux-musl; do
  [ -f "$cache/$asset.tar.gz" ] || tar -czf "$cache/$asset.tar.gz" -C "$staging" rg
done
rm -rf "$staging"

# Fixes 1 and 4: postinstall refuses root without unsafe-perm; node-pty runs `npx node-gyp`.
(
  cd "$pkg"
  export npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr
  export npm_config_user_agent="npm/$(npm --version) node/$(node --version) linux x64"
  sh ./postinstall.sh
) >>"$log" 2>&1 || { echo "installCodeServer: postinstall failed; see $log" >&2; tail -30 "$log" >&2; exit 1; }

touch "$marker"
echo "$pkg"
