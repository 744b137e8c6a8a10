// Answers VS Code's modal dialogs as a person does: the workspace-trust prompt at start, and any
// other modal by its button (e.g. Vigil's confirmation of a workspace's agent).

import type { Page } from 'playwright-core';

export type TrustAnswer = 'trust' | 'restricted';

/** A modal dialog of the workbench (trust prompt, `showWarningMessage(..., { modal: true })`). */
export function modalDialog(page: Page, text?: string | RegExp) {
  return page.locator('.monaco-dialog-box', text === undefined ? undefined : { hasText: text });
}

/** Clicks `button` in the modal that shows `text`, once it is up; resolves when that modal is gone. */
export async function answerModal(page: Page, text: string | RegExp, button: string | RegExp, timeoutMs = 90_000): Promise<void> {
  const dialog = modalDialog(page, text);
  await dialog.waitFor({ timeout: timeoutMs });
  await dialog.locator('.dialog-buttons .monaco-button', { hasText: button }).first().click();
  await dialog.waitFor({ state: 'detached', timeout: timeoutMs });
}

/** Answers the start-up prompt "Do you trust the authors of the files in this folder?". */
export async function answerWorkspaceTrust(page: Page, answer: TrustAnswer): Promise<void> {
  await answerModal(page, /trust the authors/i, answer === 'trust' ? /^Yes, I trust the authors/ : /^No, I don.t trust the authors/);
}
