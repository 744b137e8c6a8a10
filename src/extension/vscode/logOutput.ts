// The core's Logger port on top of VS Code's LogOutputChannel ("Vigil" in the Output panel).
// Every line goes through the redactor: the channel is only ever written through this logger.

import * as vscode from 'vscode';
import type { Logger } from '../core/ports/logger';
import { redactingLogger } from '../core/common/redactingLogger';
import type { Redactor } from '../core/common/redactor';

export function createLogChannel(redactor: Redactor): { channel: vscode.LogOutputChannel; logger: Logger } {
  const channel = vscode.window.createOutputChannel('Vigil', { log: true });
  const raw: Logger = {
    trace: (m, ...a) => channel.trace(m, ...a),
    debug: (m, ...a) => channel.debug(m, ...a),
    info: (m, ...a) => channel.info(m, ...a),
    warn: (m, ...a) => channel.warn(m, ...a),
    error: (m, ...a) => channel.error(m, ...a),
  };
  return { channel, logger: redactingLogger(raw, redactor) };
}
