// The person's user settings file, read by Vigil itself: the evidence of which agent they chose when the
// editor did not pass their settings to this window (core/settings/agentChoiceGate.ts).

import * as vscode from 'vscode';
import { constants, promises as fs } from 'node:fs';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { SettingsFileText } from '../core/settings/agentChoiceGate';
import { SETTINGS_FILE_BYTE_LIMIT } from '../core/settings/agentChoiceAgreement';

/**
 * Reads the settings file of the profile this extension runs in: it sits two folders above the extension's
 * global storage (`User/globalStorage/<id>` beside `User/settings.json`, the same under `User/profiles/<p>/`).
 * No file, a larger one or a failed read gives undefined: no evidence, nothing held.
 */
export function userSettingsFileReader(globalStorageUri: vscode.Uri, logger: Logger): () => Promise<SettingsFileText | undefined> {
  const uri = vscode.Uri.joinPath(globalStorageUri, '..', '..', 'settings.json');
  let warned = false;
  return async () => {
    try {
      // A local file is read directly: the workbench's own read of it is what may have failed.
      const bytes = uri.scheme === 'file' ? await readBounded(uri.fsPath) : await readThroughEditor(uri);
      return bytes === undefined ? undefined : { path: uri.scheme === 'file' ? uri.fsPath : uri.toString(true), text: bytes.toString('utf8') };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'FileNotFound' && !warned) {
        warned = true;
        logger.warn(`[settings] reading your settings file ${uri.toString(true)} failed (${errorMessage(error)}); the agent settings VS Code reports are used as they are`);
      }
      return undefined;
    }
  };
}

async function readBounded(file: string): Promise<Buffer | undefined> {
  // Non-blocking: a FIFO in its place must not hang the prompt.
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > SETTINGS_FILE_BYTE_LIMIT) return undefined;
    // One byte more than the limit: a file that grew meanwhile is refused, not read whole.
    const buffer = Buffer.alloc(Math.min(stat.size, SETTINGS_FILE_BYTE_LIMIT) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead > SETTINGS_FILE_BYTE_LIMIT ? undefined : buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function readThroughEditor(uri: vscode.Uri): Promise<Buffer | undefined> {
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.size > SETTINGS_FILE_BYTE_LIMIT) return undefined;
  return Buffer.from(await vscode.workspace.fs.readFile(uri));
}
