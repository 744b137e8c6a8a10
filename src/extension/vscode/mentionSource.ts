// What the composer's `@` offers, from VS Code: workspace files (findFiles, so `files.exclude` applies;
// bounded, cached briefly while the person types), the active editor's selection and the Problems list;
// and the same mentions for files named by URI (Add File to Vigil, a drop) and the active file's Problems.

import * as vscode from 'vscode';
import * as path from 'node:path';
import { contextLimits, type MentionItem } from '../../shared/promptContext';
import { locatePath } from '../core/acp/workspaceBoundary';
import { isWithin } from '../core/acp/workspaceFs';
import { rankPaths } from '../presentation/mentionMatch';
import { fileMentions, type FoundMentions } from '../presentation/fileMentions';

/** Files scanned per query: enough for a large repository's picker, bounded for a huge one. */
const scanLimit = 20_000;
const cacheMs = 5_000;

export class MentionSource {
  private cache: { root: string; at: number; files: Promise<string[]> } | undefined;

  /** `root`: the session's workspace folder; files are offered only from inside it. */
  async query(root: string | undefined, query: string): Promise<{ items: MentionItem[]; note?: string }> {
    const q = query.slice(0, contextLimits.queryChars).trim();
    const items: MentionItem[] = [];
    const notes: string[] = [];
    const lower = q.toLowerCase();
    if ('selection'.startsWith(lower)) {
      const selection = this.selection(root);
      if (typeof selection === 'string') {
        if (lower !== '') notes.push(selection);
      } else items.push(selection);
    }
    if ('problems'.startsWith(lower)) items.push(this.problems(root));
    if (root === undefined) {
      notes.push('Open a folder to mention its files.');
      return { items, note: notes.join(' ') || undefined };
    }
    const files = await this.files(root);
    // Offered only what a send would accept: a listed path through a symlink out (search follows them) is dropped here.
    const ranked = rankPaths(q, files, contextLimits.mentionResults * 2);
    const located = await Promise.all(ranked.map((rel) => locatePath(root, rel).catch(() => undefined)));
    const usable = ranked.filter((_, i) => located[i]?.inside === true && located[i]?.kind === 'file');
    for (const rel of usable.slice(0, contextLimits.mentionResults)) items.push({ kind: 'file', path: rel });
    if (files.length >= scanLimit) notes.push(`Only the first ${scanLimit} files of the workspace are searched.`);
    return { items, note: notes.join(' ') || undefined };
  }

  private files(root: string): Promise<string[]> {
    const now = Date.now();
    if (this.cache && this.cache.root === root && now - this.cache.at < cacheMs) return this.cache.files;
    const files = Promise.resolve(vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(root), '**/*'), undefined, scanLimit)).then((uris) =>
      uris
        .filter((u) => u.scheme === 'file' && isWithin(root, u.fsPath))
        .map((u) => path.relative(root, u.fsPath).split(path.sep).join('/'))
        .filter((rel) => rel !== '' && rel.length <= contextLimits.pathChars),
    );
    this.cache = { root, at: now, files };
    files.catch(() => (this.cache = undefined));
    return files;
  }

  /** Files named by URI (a drop from the Explorer, Add File to Vigil): mentions by the rule `@` follows. */
  async uris(root: string | undefined, uris: readonly string[]): Promise<FoundMentions> {
    const paths: string[] = [];
    const refused: string[] = [];
    for (const text of uris) {
      const file = localPath(text);
      if (file === undefined) refused.push(`${JSON.stringify(text.slice(0, 120))} is not a file on this machine.`);
      else paths.push(file);
    }
    const found = await fileMentions(root, paths);
    const note = [...refused, ...(found.note ? [found.note] : [])].join(' ');
    return { items: found.items, ...(note ? { note } : {}) };
  }

  /** The Problems of the active editor's file, or why there are none to offer. */
  activeProblems(root: string | undefined): FoundMentions {
    const file = vscode.window.activeTextEditor?.document.uri;
    if (!file || file.scheme !== 'file') return { items: [], note: 'Open a file in the editor to attach its Problems.' };
    if (root === undefined || !isWithin(root, file.fsPath)) return { items: [], note: `${path.basename(file.fsPath)} is outside the session's folder; its Problems are not attached.` };
    const rel = path.relative(root, file.fsPath).split(path.sep).join('/');
    return { items: [this.problems(root, file.toString(), rel)] };
  }

  /** The active editor's selection, or why there is none to offer. */
  selection(root: string | undefined): MentionItem | string {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return 'No editor is active, so there is no selection to mention.';
    const sel = editor.selection;
    if (sel.isEmpty) return 'Select some text in the editor to mention it.';
    const text = editor.document.getText(sel);
    if (text.length > contextLimits.embeddedChars) return `The selection is ${text.length} characters; at most ${contextLimits.embeddedChars} can be attached. Mention the file instead.`;
    const file = editor.document.uri;
    const shown = file.scheme === 'file' && root !== undefined && isWithin(root, file.fsPath) ? path.relative(root, file.fsPath).split(path.sep).join('/') : file.scheme === 'file' ? file.fsPath : path.basename(file.path) || 'untitled';
    const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
    return { kind: 'selection', path: shown.slice(0, contextLimits.pathChars), startLine: sel.start.line + 1, endLine, text };
  }

  /** The Problems list of the workspace folder (errors first), bounded in count and size; `only`: one file's (its URI, and its path as shown). */
  private problems(root: string | undefined, only?: string, onlyPath?: string): MentionItem {
    const lines: string[] = [];
    let total = 0;
    const all: Array<{ rel: string; d: vscode.Diagnostic }> = [];
    for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
      if (uri.scheme !== 'file' || (root !== undefined && !isWithin(root, uri.fsPath)) || (only !== undefined && uri.toString() !== only)) continue;
      const rel = root !== undefined ? path.relative(root, uri.fsPath).split(path.sep).join('/') : uri.fsPath;
      for (const d of diagnostics) {
        if (d.severity > vscode.DiagnosticSeverity.Warning) continue;
        all.push({ rel, d });
      }
    }
    all.sort((a, b) => a.d.severity - b.d.severity || (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : a.d.range.start.line - b.d.range.start.line));
    let chars = 0;
    for (const { rel, d } of all) {
      total += 1;
      if (lines.length >= contextLimits.problems) continue;
      const severity = d.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning';
      const line = `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severity}: ${d.message.replace(/\s+/g, ' ').slice(0, 500)}${d.source ? ` (${d.source})` : ''}`;
      if (chars + line.length + 1 > contextLimits.embeddedChars - 200) continue;
      chars += line.length + 1;
      lines.push(line);
    }
    const more = total - lines.length;
    const where = onlyPath !== undefined ? ` of ${onlyPath}` : '';
    const text = lines.length === 0 ? `No errors or warnings in the Problems list${where}.` : `${lines.join('\n')}${more > 0 ? `\n… and ${more} more not listed` : ''}`;
    return { kind: 'problems', count: total, text, ...(onlyPath !== undefined ? { path: onlyPath.slice(0, contextLimits.pathChars) } : {}) };
  }
}

/** The path on this machine a dropped URI names: `file:`, or `vscode-remote:` as a browser workbench names this host's files. */
function localPath(text: string): string | undefined {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(text.trim(), true);
  } catch {
    return undefined;
  }
  if (uri.scheme === 'file' || uri.scheme === 'vscode-remote') return uri.with({ scheme: 'file', authority: '' }).fsPath;
  return undefined;
}
