// The extension's user-facing text kept outside the code: package.nls.json (the manifest's strings, referenced as
// %key% from package.json) and l10n/bundle.l10n.json (every vscode.l10n.t message, the source for translations).
// `node scripts/l10n.mjs` rewrites the bundle from the sources; the unit tests check that both are complete.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const NLS_KEY = /^%([^%\s]+)%$/;

/** package.json as VS Code shows it: every "%key%" string replaced by its package.nls.json text. */
export function resolveManifest(manifest, nls) {
  const missing = [];
  const resolve = (value) => {
    if (typeof value === 'string') {
      const key = NLS_KEY.exec(value)?.[1];
      if (key === undefined) return value;
      if (typeof nls[key] !== 'string') missing.push(key);
      return nls[key] ?? value;
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  const resolved = resolve(manifest);
  if (missing.length > 0) throw new Error(`package.json refers to ${missing.map((k) => `%${k}%`).join(', ')}, missing from package.nls.json: add the text there.`);
  return resolved;
}

/** The %key% references of package.json, in order of appearance. */
export function manifestKeys(manifest) {
  const keys = [];
  const walk = (value) => {
    if (typeof value === 'string') {
      const key = NLS_KEY.exec(value)?.[1];
      if (key !== undefined) keys.push(key);
    } else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(manifest);
  return keys;
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

const CALL = /\bl10n\.t\(\s*/g;
const LITERAL = /^(['"])((?:(?!\1)[^\\\n]|\\.)*)\1/;

/** Every message given to vscode.l10n.t under src/extension, sorted; a call whose message is not a plain string literal is an error. */
export function l10nMessages(root) {
  const messages = new Set();
  const problems = [];
  for (const file of sourceFiles(path.join(root, 'src', 'extension'))) {
    const text = readFileSync(file, 'utf8');
    for (const call of text.matchAll(CALL)) {
      const literal = LITERAL.exec(text.slice(call.index + call[0].length));
      if (literal) messages.add(literal[2].replace(/\\(.)/g, (_, c) => ({ n: '\n', t: '\t' })[c] ?? c));
      else problems.push(`${path.relative(root, file)}:${text.slice(0, call.index).split('\n').length}`);
    }
  }
  if (problems.length > 0) throw new Error(`vscode.l10n.t needs a plain string literal as its message (placeholders {0}, {1} for the values) at ${problems.join(', ')}.`);
  return [...messages].sort();
}

export function bundleText(root) {
  return `${JSON.stringify(Object.fromEntries(l10nMessages(root).map((m) => [m, m])), null, 2)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  writeFileSync(path.join(root, 'l10n', 'bundle.l10n.json'), bundleText(root));
  console.log(`l10n/bundle.l10n.json: ${l10nMessages(root).length} messages`);
}
