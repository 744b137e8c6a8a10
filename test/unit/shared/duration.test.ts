// Elapsed times read the same in the session view, the task quick pick and the terminal mirror.

import * as assert from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { formatDuration } from '../../../src/shared/duration';

const MIN = 60_000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('formatDuration', () => {
  it('formats durations in seconds, minutes and hours', () => {
    assert.strictEqual(formatDuration(-5), '0 s');
    assert.strictEqual(formatDuration(42_900), '42 s');
    assert.strictEqual(formatDuration(185_000), '3 min 05 s');
    assert.strictEqual(formatDuration(2 * 3600_000 + 10 * MIN), '2 h 10 min');
  });

  it('is defined once in src/, so the extension and the webview cannot drift apart', () => {
    const src = path.resolve(__dirname, '..', '..', '..', '..', 'src');
    const definitions = sourceFiles(src).filter((file) => /\bfunction formatDuration\b|\bformatDuration\s*=/.test(readFileSync(file, 'utf8')));
    assert.deepStrictEqual(definitions.map((f) => path.relative(src, f).split(path.sep).join('/')), ['shared/duration.ts']);
  });
});
