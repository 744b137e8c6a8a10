// The ACP client's approval ports in VS Code: the policy from settings and workspace trust, and a prompter
// that asks in the session view when it shows the session, else (also) in a notification.

import * as vscode from 'vscode';
import type { ApprovalMode, ApprovalPolicy, PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../core/acp/hostPorts';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import { untilAborted } from '../../shared/untilAborted';
import { approvalModeFor, type ValidatedSettings } from '../core/settings/settingsValidation';

export class SettingsApprovalPolicy implements ApprovalPolicy {
  constructor(private readonly config: { isTrusted(): boolean; readonly settings: Pick<ValidatedSettings, 'approvals'> & Partial<Pick<ValidatedSettings, 'edits'>> }) {}

  isTrusted(): boolean {
    return this.config.isTrusted();
  }

  /** With a tool kind, `vigil.approvals.byKind` applies (to permission requests and to Vigil's own client-side checks). */
  mode(kind?: string): ApprovalMode {
    return approvalModeFor(this.config.settings.approvals, kind);
  }

  editReview(): 'auto' | 'ask' {
    return this.config.settings.edits?.review ?? 'auto';
  }
}

/** The session view's side of approvals, wired to the webview by VigilApp (vigilApp.ts). */
export interface ApprovalSurface {
  /** Shows the question in the session view and resolves with the answer given there; must remove it when `signal` aborts. */
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer>;
  /** Whether the person can see the question there now (the view is visible and shows that session). */
  isShowing(sessionId: string): boolean;
}

export interface ApprovalPrompterDeps {
  /** The session view, when it exists. */
  surface?(): ApprovalSurface | undefined;
  sessionTitle?(sessionId: string): string | undefined;
  logger: Logger;
  /** A modal dialog instead of a notification (it blocks the whole window; off by default). */
  modal?: boolean;
  /** Cuts secrets out of the notification text (a tool call's title may carry a token). */
  redact?(text: string): string;
}

const CHOICES: Array<[string, PermissionAnswer]> = [
  ['Allow once', 'allowOnce'],
  ['Allow always', 'allowAlways'],
  ['Reject', 'reject'],
];

export class ApprovalPrompter implements PermissionPrompter {
  constructor(private readonly deps: ApprovalPrompterDeps) {}

  async ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    if (signal.aborted) return 'cancelled';
    // One controller for the whole question: the first answer (or the turn's abort) withdraws it everywhere.
    const settled = new AbortController();
    const withdrawn = AbortSignal.any([signal, settled.signal]);
    const racers: Array<Promise<PermissionAnswer>> = [];
    const surface = this.deps.surface?.();
    if (surface) {
      racers.push(surface.ask(question, withdrawn).catch((error: unknown) => {
        this.deps.logger.error(`[approvals] the session view could not ask: ${errorMessage(error)}; asking in a notification`);
        return this.notify(question, false);
      }));
    }
    if (!surface || !surface.isShowing(question.sessionId)) racers.push(this.notify(question, surface !== undefined));
    try {
      const answer = await untilAborted(Promise.race(racers), withdrawn, () => 'cancelled' as const);
      this.deps.logger.info(`[approvals] ${question.kind} “${question.title}”: ${answer}`);
      return answer;
    } finally {
      settled.abort();
    }
  }

  /** A dismissed notification is a rejection unless the session view can still be answered. */
  private async notify(question: PermissionQuestion, viewPending: boolean): Promise<PermissionAnswer> {
    const title = this.deps.sessionTitle?.(question.sessionId);
    const message = `Vigil: the agent${title ? ` in “${title}”` : ''} asks to ${question.title}`;
    const choice = await vscode.window.showInformationMessage(
      this.deps.redact?.(message) ?? message,
      { modal: this.deps.modal === true, detail: `Tool kind: ${question.kind}. “Allow always” tells the agent not to ask again for calls like this one.` },
      ...CHOICES.map(([label]) => label),
    );
    const answer = CHOICES.find(([label]) => label === choice)?.[1];
    if (answer) return answer;
    return viewPending ? new Promise<PermissionAnswer>(() => undefined) : 'reject';
  }
}
