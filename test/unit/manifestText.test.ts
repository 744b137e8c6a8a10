// The user-facing text of the manifest lives in package.nls.json and the extension host's messages go through
// vscode.l10n.t; the generated files (l10n bundle, docs/ui.md tables) stay in step with their sources.

import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

interface L10nScript {
  resolveManifest(manifest: unknown, nls: Record<string, string>): Manifest;
  manifestKeys(manifest: unknown): string[];
  bundleText(root: string): string;
}
interface UiTablesScript {
  regenerate(doc: string, manifest: Manifest): string;
}
interface Manifest {
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    views: Record<string, Array<{ name: string }>>;
    viewsContainers: Record<string, Array<{ title: string }>>;
    configuration: { title: string; properties: Record<string, Record<string, unknown>> };
  };
}

const script = async <T>(name: string): Promise<T> => (await import(pathToFileURL(path.join(root, 'scripts', name)).href)) as T;


/** `show…Message(` or a quick pick / input box text given as a bare string literal instead of vscode.l10n.t(…). */
const LITERAL_MESSAGE = /\bshow(?:Information|Warning|Error)Message\(\s*['"`]|\b(?:placeHolder|prompt|title)\s*:\s*['"`]/g;

function literalMessages(text: string): number[] {
  return [...text.matchAll(LITERAL_MESSAGE)].map((m) => text.slice(0, m.index).split('\n').length);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('manifest and message text', () => {
  it('every %key% of package.json has its text in package.nls.json, and every text there is used', async () => {
    const { manifestKeys } = await script<L10nScript>('l10n.mjs');
    const used = new Set(manifestKeys(JSON.parse(read('package.json'))));
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    assert.deepEqual([...used].filter((k) => typeof nls[k] !== 'string'), [], 'referenced but missing from package.nls.json');
    assert.deepEqual(Object.keys(nls).filter((k) => !used.has(k)), [], 'in package.nls.json but referenced nowhere');
  });

  it('command titles and categories, view names and setting descriptions are all %key% references', () => {
    const manifest = JSON.parse(read('package.json')) as Manifest;
    const literal: string[] = [];
    const check = (where: string, value: unknown) => {
      if (typeof value === 'string' && !/^%[^%\s]+%$/.test(value)) literal.push(`${where}: ${value.slice(0, 40)}`);
    };
    for (const c of manifest.contributes.commands) {
      check(`${c.command} title`, c.title);
      check(`${c.command} category`, c.category);
    }
    for (const views of Object.values(manifest.contributes.views)) views.forEach((v) => check('view name', v.name));
    for (const containers of Object.values(manifest.contributes.viewsContainers)) containers.forEach((v) => check('view container title', v.title));
    check('configuration title', manifest.contributes.configuration.title);
    const walk = (where: string, node: unknown): void => {
      if (Array.isArray(node)) node.forEach((n, i) => walk(`${where}[${i}]`, n));
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (['description', 'markdownDescription', 'deprecationMessage', 'markdownDeprecationMessage'].includes(k)) check(`${where}.${k}`, v);
          else if (k === 'enumDescriptions' || k === 'markdownEnumDescriptions') (v as unknown[]).forEach((d, i) => check(`${where}.${k}[${i}]`, d));
          else if (k !== 'default' && k !== 'enum') walk(`${where}.${k}`, v);
        }
      }
    };
    walk('configuration', manifest.contributes.configuration.properties);
    assert.deepEqual(literal, []);
  });

  it('package.json resolved through package.nls.json reads as before: "Vigil: New Session", the settings title', async () => {
    const { resolveManifest } = await script<L10nScript>('l10n.mjs');
    const resolved = resolveManifest(JSON.parse(read('package.json')), JSON.parse(read('package.nls.json')) as Record<string, string>);
    const newSession = resolved.contributes.commands.find((c) => c.command === 'vigil.newSession')!;
    assert.equal(`${newSession.category}: ${newSession.title}`, 'Vigil: New Session');
    assert.throws(() => resolveManifest({ title: '%nowhere%' }, {}), /%nowhere%.*package\.nls\.json/);
  });

  it('the l10n bundle holds exactly the vscode.l10n.t messages of the sources (regenerate: node scripts/l10n.mjs)', async () => {
    const { bundleText } = await script<L10nScript>('l10n.mjs');
    assert.equal(read('l10n/bundle.l10n.json'), bundleText(root));
  });

  it('the command and setting tables of docs/ui.md match package.json (regenerate: node scripts/uiTables.mjs)', async () => {
    const { resolveManifest } = await script<L10nScript>('l10n.mjs');
    const { regenerate } = await script<UiTablesScript>('uiTables.mjs');
    const manifest = resolveManifest(JSON.parse(read('package.json')), JSON.parse(read('package.nls.json')) as Record<string, string>);
    const doc = read('docs/ui.md');
    assert.equal(regenerate(doc, manifest), doc);
  });

  it('src/extension/vscode shows messages through vscode.l10n.t, not as bare literals', () => {
    const offenders = sourceFiles(path.join(root, 'src', 'extension', 'vscode'))
      .map((file) => path.relative(root, file).split(path.sep).join('/'))
      .flatMap((file) => literalMessages(read(file)).map((line) => `${file}:${line}`));
    assert.deepEqual(offenders, []);
  });

  it('the literal-message check sees a planted bare message and passes a localized one', () => {
    assert.deepEqual(literalMessages("x;\nvoid vscode.window.showWarningMessage('Vigil: oops');"), [2]);
    assert.deepEqual(literalMessages('await vscode.window.showInputBox({ prompt: `New ${what}` });'), [1]);
    assert.deepEqual(literalMessages("void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: oops'), vscode.l10n.t('Open'));"), []);
  });
});
