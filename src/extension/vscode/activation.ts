// Composition root of the extension host: builds the app, registers it, measures activation.

import type * as vscode from 'vscode';
import { Redactor } from '../core/common/redactor';
import { createLogChannel } from './logOutput';
import { VigilApp } from './vigilApp';

export interface VigilApi {
  /** Wall time of `activate`, for the activation benchmark. */
  activationMs: number;
  /**
   * From the first line of the bundle to the end of `activate`: the bundle's evaluation, then the wait
   * in which the extension host readies the extension's context, then `activate`.
   */
  loadAndActivateMs: number;
  /** From the first line of the bundle to its last (its modules' evaluation); 0 when not run from the bundle. */
  evaluationMs: number;
  /** The running app; tests in the extension host reach the services through it. */
  app: VigilApp;
}

export function activateVigil(context: vscode.ExtensionContext): VigilApi {
  const started = performance.now();
  // The window's one redactor: secrets are fed in as Vigil learns them, and cut out of the log,
  // the stores and the views from then on.
  const redactor = new Redactor();
  const { channel, logger } = createLogChannel(redactor);
  context.subscriptions.push(channel);
  const app = new VigilApp(context, channel, logger, redactor);
  context.subscriptions.push(app);
  const ended = performance.now();
  const activationMs = ended - started;
  const marks = globalThis as { __vigilBundleStart?: number; __vigilBundleEnd?: number };
  const bundleStart = marks.__vigilBundleStart ?? started;
  const loadAndActivateMs = ended - bundleStart;
  const evaluationMs = (marks.__vigilBundleEnd ?? bundleStart) - bundleStart;
  logger.info(`Vigil activated in ${activationMs.toFixed(1)} ms (bundle evaluated in ${evaluationMs.toFixed(1)} ms; ${loadAndActivateMs.toFixed(1)} ms from its first line, the host's wait included)`);
  return { activationMs, loadAndActivateMs, evaluationMs, app };
}
