// What templates may do: post an intent to the host. Templates never change state themselves.

import type { Intent } from './hostBridge';

export interface ViewActions {
  post(intent: Intent): void;
  sessionId(): string | undefined;
  /** The session's workspace folder: file links in markdown must stay inside it. */
  workspaceRoot(): string | undefined;
}
