// The command and setting tables of docs/ui.md, generated from package.json (its %key% texts resolved through
// package.nls.json). `node scripts/uiTables.mjs` rewrites them in docs/ui.md; a unit test checks they are current.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveManifest } from './l10n.mjs';

const COMMAND_HEADER = '| command | title | palette | keybinding | also in |';
const SETTING_HEADER = '| setting | type | default | range / values | scope | restricted | description (first sentence) |';

export function readManifest(root) {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const nls = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8'));
  return resolveManifest(manifest, nls);
}

const code = (text) => `\`${text}\``;
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function commandTable(manifest) {
  const { commands, menus = {}, keybindings = [] } = manifest.contributes;
  const rows = commands.map((c) => {
    const palette = (menus.commandPalette ?? []).find((m) => m.command === c.command);
    const keys = keybindings.filter((k) => k.command === c.command).map((k) => `${code(k.key)}${k.mac ? ` (mac ${code(k.mac)})` : ''}${k.when ? ` when ${code(k.when)}` : ''}`);
    const alsoIn = Object.entries(menus)
      .filter(([menu]) => menu !== 'commandPalette')
      .flatMap(([menu, items]) => items.filter((m) => m.command === c.command).map((m) => `${menu}${m.group === 'inline' ? ' (inline)' : ''}`))
      .sort();
    const shown = !palette?.when ? 'always' : palette.when === 'false' ? 'hidden' : `when ${code(palette.when)}`;
    return `| ${code(c.command)} | ${cell(c.category ? `${c.category}: ${c.title}` : c.title)} | ${shown} | ${keys.join(', ') || '—'} | ${alsoIn.join(', ') || '—'} |`;
  });
  return [COMMAND_HEADER, '|---|---|---|---|---|', ...rows];
}

/** Up to the first full stop that ends a sentence (". " then a capital, a digit or code), so "e.g. x" does not end it. */
function firstSentence(text) {
  const end = /(?<!\b(?:e\.g|i\.e))\.(?=\s+[A-Z0-9(*`])/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

function range(p) {
  if (Array.isArray(p.enum)) return p.enum.map(code).join(', ');
  const low = p.exclusiveMinimum !== undefined ? `>${p.exclusiveMinimum}` : p.minimum;
  if (low === undefined && p.maximum === undefined) return '—';
  return `${low ?? ''}–${p.maximum ?? ''}`;
}

export function settingsTable(manifest) {
  const restricted = new Set(manifest.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? []);
  const rows = Object.entries(manifest.contributes.configuration.properties).map(([key, p]) => {
    const type = Array.isArray(p.type) ? p.type.join(' | ') : p.type;
    const description = firstSentence(p.markdownDescription ?? p.description ?? '');
    return `| ${code(key)} | ${cell(type)} | ${code(JSON.stringify(p.default))} | ${range(p)} | ${p.scope ?? 'window'} | ${restricted.has(key) ? 'yes' : 'no'} | ${cell(description)} |`;
  });
  return [SETTING_HEADER, '|---|---|---|---|---|---|---|', ...rows];
}

/** docs/ui.md with both tables replaced by freshly generated ones. */
export function regenerate(doc, manifest) {
  let lines = doc.split('\n');
  for (const table of [commandTable(manifest), settingsTable(manifest)]) {
    const start = lines.indexOf(table[0]);
    if (start < 0) throw new Error(`docs/ui.md has no table headed "${table[0]}"`);
    let end = start;
    while (end < lines.length && lines[end].startsWith('|')) end++;
    lines = [...lines.slice(0, start), ...table, ...lines.slice(end)];
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const file = path.join(root, 'docs', 'ui.md');
  writeFileSync(file, regenerate(readFileSync(file, 'utf8'), readManifest(root)));
  console.log('docs/ui.md: command and setting tables regenerated from package.json');
}
