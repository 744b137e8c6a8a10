// Composition root of the extension host: builds the app, registers it, measures activation.

import type * as vscode from 'vscode';
import { createLogChannel } from './logOutput';
import { VigilApp } from './vigilApp';

export interface VigilApi {
  /** Wall time of `activate`, for the activation benchmark. */
  activationMs: number;
  /** The running app; tests in the extension host reach the services through it. */
  app: VigilApp;
}

export function activateVigil(context: vscode.ExtensionContext): VigilApi {
  const started = performance.now();
  const { channel, logger } = createLogChannel();
  context.subscriptions.push(channel);
  const app = new VigilApp(context, channel, logger);
  context.subscriptions.push(app);
  const activationMs = performance.now() - started;
  logger.info(`Vigil activated in ${activationMs.toFixed(1)} ms`);
  return { activationMs, app };
}
