// Composition root of the extension host: builds the app, registers it, measures activation.

import type * as vscode from 'vscode';
import { createLogChannel } from './logOutput';
import { VigilApp } from './vigilApp';

export interface VigilApi {
  /** Wall time of `activate`, for the activation benchmark. */
  activationMs: number;
  /** From the first line of the bundle to the end of `activate`: module loading included. */
  loadAndActivateMs: number;
  /** The running app; tests in the extension host reach the services through it. */
  app: VigilApp;
}

export function activateVigil(context: vscode.ExtensionContext): VigilApi {
  const started = performance.now();
  const { channel, logger } = createLogChannel();
  context.subscriptions.push(channel);
  const app = new VigilApp(context, channel, logger);
  context.subscriptions.push(app);
  const ended = performance.now();
  const activationMs = ended - started;
  const bundleStart = (globalThis as { __vigilBundleStart?: number }).__vigilBundleStart ?? started;
  const loadAndActivateMs = ended - bundleStart;
  logger.info(`Vigil activated in ${activationMs.toFixed(1)} ms (${loadAndActivateMs.toFixed(1)} ms with loading the bundle)`);
  return { activationMs, loadAndActivateMs, app };
}
