// Asks the person, once per workspace and value, before a trusted workspace's `vigil.agent` or
// `vigil.model.baseUrl` is used: a modal showing the exact value and what using it means. Confirmations
// persist in workspace storage; a decline holds for this window. The decisions themselves are in settingsTrust.ts.

import * as vscode from 'vscode';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import { ConfirmationLedger, declinedText, describeQuestion, summarizeValue, type Answer, type ConfirmedSetting, type WorkspaceValueQuestion } from '../core/settings/settingsTrust';
import { SingleFlight } from '../core/common/singleFlight';

const STORAGE_KEY = 'vigil.confirmedWorkspaceSettings';

export interface WorkspaceSettingsTrustOptions {
  /** Where confirmations are kept: the extension's workspace storage. */
  storage: Pick<vscode.Memento, 'get' | 'update'>;
  logger: Logger;
  /** Shows the question and resolves true for "use it"; default a modal warning. Tests inject one. */
  ask?(question: WorkspaceValueQuestion, text: { message: string; detail: string; accept: string }): PromiseLike<boolean>;
}

export class WorkspaceSettingsTrust {
  private readonly ledger: ConfirmationLedger;
  /** Questions on screen now, by setting and value: concurrent launches share one. */
  private readonly open = new SingleFlight<string, boolean>();

  constructor(private readonly options: WorkspaceSettingsTrustOptions) {
    this.ledger = new ConfirmationLedger({
      read: () => options.storage.get(STORAGE_KEY),
      write: (entries) => options.storage.update(STORAGE_KEY, entries),
    });
  }

  answer(key: ConfirmedSetting, hash: string): Answer {
    return this.ledger.answer(key, hash);
  }

  /** Asks (or joins the open question) and records the answer; true when the person confirmed the value. */
  confirm(question: WorkspaceValueQuestion): Promise<boolean> {
    const id = `${question.key}:${question.hash}`;
    const known = this.ledger.answer(question.key, question.hash);
    if (known !== 'unanswered') return Promise.resolve(known === 'confirmed');
    return this.open.run(id, () => this.ask(question));
  }

  private async ask(question: WorkspaceValueQuestion): Promise<boolean> {
    const text = describeQuestion(question);
    this.options.logger.info(`[settings] asking whether to use this workspace's vigil.${question.key} (${summarizeValue(question)})`);
    let accepted = false;
    try {
      accepted = this.options.ask
        ? await this.options.ask(question, text)
        : (await vscode.window.showWarningMessage(text.message, { modal: true, detail: text.detail }, text.accept)) === text.accept;
    } catch (error) {
      this.options.logger.error(`[settings] asking about this workspace's vigil.${question.key} failed: ${errorMessage(error)}; it is not used`);
    }
    if (accepted) {
      try {
        await this.ledger.confirm(question.key, question.hash);
      } catch (error) {
        // Used in this window all the same; only a later window asks again.
        this.options.logger.error(`[settings] remembering the confirmation of this workspace's vigil.${question.key} failed: ${errorMessage(error)}`);
      }
      this.options.logger.info(`[settings] this workspace's vigil.${question.key} was confirmed (${summarizeValue(question)}); it is used from now on, also after a reload, until its value changes`);
    } else {
      this.ledger.decline(question.key, question.hash);
      this.options.logger.warn(`[settings] ${declinedText(question.key)}`);
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: {0}', declinedText(question.key)), vscode.l10n.t('Open Workspace Settings'), vscode.l10n.t('Open User Settings')).then(
        (choice) => {
          if (choice === vscode.l10n.t('Open Workspace Settings')) void vscode.commands.executeCommand('workbench.action.openWorkspaceSettings', `vigil.${question.key}`);
          if (choice === vscode.l10n.t('Open User Settings')) void vscode.commands.executeCommand('workbench.action.openSettings', `vigil.${question.key}`);
        },
        () => undefined,
      );
    }
    return accepted;
  }
}
