// The import graph of a source tree, file by file, as the architecture test reads it: every relative import,
// export-from, require and dynamic import (type-only ones too: a circle of types is still a circle a reader walks),
// read by TypeScript's own pre-processor so no form of import is missed by a regular expression.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** Each file (absolute path) → the files it imports by relative path, resolved as TypeScript resolves them. */
export type ImportGraph = Map<string, string[]>;

export function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** `specifier` imported from `file`, resolved to a file; undefined for a package or node module. */
function resolveImport(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(file), specifier);
  const candidates = [base, `${base}.ts`, path.join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? base;
}

export function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const resolved = importedFiles.map((i) => resolveImport(file, i.fileName)).filter((f): f is string => f !== undefined);
  return [...new Set(resolved)];
}

export function importGraph(dir: string): ImportGraph {
  return new Map(tsFiles(dir).map((file) => [file, importsOf(file)]));
}

/** The import circles of `graph`: each strongly connected set of files (Tarjan), and every file that imports itself. */
export function importCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== file);
    if (members.length > 1 || graph.get(file)!.includes(file)) circles.push(members.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}
