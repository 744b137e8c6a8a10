// "Vigil: Export Session as Markdown…": the whole durable transcript of a session, rendered by
// presentation/transcriptMarkdown.ts and written piece by piece to a file the person picks (or the
// `{ uri }` a script passes). Written beside the target and renamed into place: a failed export
// leaves any earlier file whole.

import * as vscode from 'vscode';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { exportFileName, transcriptEntries } from '../presentation/transcriptExport';
import { transcriptMarkdown } from '../presentation/transcriptMarkdown';
import type { Redactor } from '../core/common/redactor';
import type { Logger } from '../core/ports/logger';
import type { VigilServices } from '../services';
import type { SessionController } from './sessionController';

/** What an export reads of the running extension (vigilApp.ts provides it). */
export interface ExportHost {
  readonly sessions: Pick<SessionController, 'currentSessionId' | 'currentSnapshot'>;
  readonly redactor: Redactor;
  readonly logger: Logger;
  services(): Promise<VigilServices>;
}

export interface ExportTarget {
  sessionId?: string;
  uri?: vscode.Uri;
}

/** A session id (string, a row of the session list, `{ sessionId }`) and an optional `{ uri }` (Uri or absolute path). */
export function exportTarget(arg: unknown): ExportTarget {
  if (typeof arg === 'string') return { sessionId: arg };
  if (arg === null || typeof arg !== 'object') return {};
  const a = arg as { sessionId?: unknown; uri?: unknown; meta?: { id?: unknown } };
  const sessionId = typeof a.sessionId === 'string' ? a.sessionId : typeof a.meta?.id === 'string' ? a.meta.id : undefined;
  let uri: vscode.Uri | undefined;
  if (a.uri instanceof vscode.Uri) uri = a.uri;
  else if (typeof a.uri === 'string') {
    if (!path.isAbsolute(a.uri)) throw new Error(`Export needs an absolute file path; "${a.uri}" is relative.`);
    uri = vscode.Uri.file(a.uri);
  }
  return { sessionId, uri };
}

export async function exportSessionAsMarkdown(app: ExportHost, arg: unknown): Promise<vscode.Uri | undefined> {
  const target = exportTarget(arg);
  const sessionId = target.sessionId ?? app.sessions.currentSessionId;
  if (!sessionId) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: open a session (or right-click one in the Sessions list) to export it.'));
    return undefined;
  }
  const services = await app.services();
  const meta = await services.supervisor.sessions.get(sessionId);
  if (!meta) throw new Error(`Session ${sessionId} does not exist any more.`);
  const uri =
    target.uri ??
    (await vscode.window.showSaveDialog({
      title: vscode.l10n.t('Export Session as Markdown'),
      saveLabel: 'Export',
      defaultUri: vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir()), exportFileName(meta.title)),
      filters: { Markdown: ['md'] },
    }));
  if (!uri) return undefined;
  const records = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Vigil: exporting "{0}"…', meta.title) }, async () => {
    const { records } = await services.supervisor.sessions.readAll(sessionId);
    const pieces = transcriptMarkdown(
      { title: meta.title, sessionId, createdAt: meta.createdAt, agent: app.sessions.currentSessionId === sessionId ? app.sessions.currentSnapshot?.session?.agent : undefined, exportedAt: Date.now() },
      transcriptEntries(records),
    );
    // The transcript holds secrets masked already; the redactor also masks any it learned since.
    const redacted = (function* () {
      for (const piece of pieces) yield app.redactor.redact(piece);
    })();
    await writePieces(uri, redacted);
    return records;
  });
  app.logger.info(`exported session ${sessionId} (${records.length} records) to ${uri.toString()}`);
  void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: exported "{0}" to {1}.', meta.title, uri.scheme === 'file' ? uri.fsPath : uri.toString()), vscode.l10n.t('Open')).then((choice) => {
    if (choice === vscode.l10n.t('Open')) void vscode.commands.executeCommand('vscode.open', uri);
  });
  return uri;
}

async function writePieces(uri: vscode.Uri, pieces: Iterable<string>): Promise<void> {
  if (uri.scheme !== 'file') {
    // Another file system provider takes one buffer.
    let text = '';
    for (const piece of pieces) text += piece;
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text, 'utf8'));
    return;
  }
  const file = uri.fsPath;
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.partial`);
  const handle = await fs.open(temp, 'wx');
  try {
    let batch = '';
    for (const piece of pieces) {
      batch += piece;
      if (batch.length >= 64 * 1024) {
        await handle.write(batch);
        batch = '';
      }
    }
    if (batch) await handle.write(batch);
    await handle.close();
    await fs.rename(temp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw new Error(`Could not write ${file}: ${error instanceof Error ? error.message : String(error)}. Pick a folder you can write to.`, { cause: error });
  }
}
