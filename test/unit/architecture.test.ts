// The layering of docs/architecture.md (dependency rules), enforced: only src/extension/vscode may import 'vscode'.

import * as assert from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const importsVscode = /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/;

function sourceFiles(dir: string): string[] {
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [full] : [];
  });
}

describe('architecture', () => {
  for (const layer of ['src/extension/core', 'src/extension/presentation', 'src/extension/services.ts', 'src/agent', 'src/shared', 'src/webview']) {
    it(`${layer} never imports vscode`, () => {
      const offenders = sourceFiles(path.join(repoRoot, layer)).filter((file) => importsVscode.test(readFileSync(file, 'utf8')));
      assert.deepStrictEqual(offenders.map((f) => path.relative(repoRoot, f)), []);
    });
  }

  it('the check itself recognises every form of import', () => {
    for (const line of ["import * as vscode from 'vscode';", 'import type { Uri } from "vscode";', "const v = require('vscode');", "await import('vscode')"]) {
      assert.ok(importsVscode.test(line), line);
    }
    assert.ok(!importsVscode.test("import { x } from './vscodeLike';"));
  });
});
