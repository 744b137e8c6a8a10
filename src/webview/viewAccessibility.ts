// What a keyboard or screen-reader user needs beyond the templates, kept in one place:
// * codicons are decoration: every one is hidden from the accessibility tree, also those a template
//   adds later (a glyph in a private-use code point reads as noise);
// * a new approval takes focus (its first button), as VS Code's chat does with confirmations, unless
//   the person is typing into a field that holds text; Alt+A reaches the open approval from anywhere;
// * visible focus on every native button.

import { css } from 'lit';
import { approvalShortcut } from './statusLine';

export const accessibilityStyles = css`
  button:focus-visible, summary:focus-visible, [tabindex]:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 1px; }
  .entry.user, .entry.agent { position: relative; }
  .copy-entry {
    position: absolute; top: 2px; right: 2px; opacity: 0; padding: 1px 3px; border: none; border-radius: 3px;
    color: var(--vscode-icon-foreground); background: var(--vscode-sideBar-background, var(--vscode-editor-background)); cursor: pointer;
  }
  .entry:hover > .copy-entry, .entry:focus-within > .copy-entry, .copy-entry:focus-visible { opacity: 1; }
  .copy-entry:hover { background: var(--vscode-toolbar-hoverBackground); }
  .phase-hint { color: var(--vscode-descriptionForeground); }
`;

export class ViewAccessibility {
  private seenApprovals = new Set<string>();
  private readonly observer = new MutationObserver((records) => this.check(records));

  constructor(private readonly root: HTMLElement) {}

  start(): void {
    this.observer.observe(this.root, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-request-id'] });
    document.addEventListener('keydown', (e) => {
      if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey && e.code === `Key${approvalShortcut.key.toUpperCase()}`) {
        if (this.focusApproval()) e.preventDefault();
      }
    });
    this.check([]);
  }

  /** Moves focus to the first open approval's first button; false when none is open. */
  focusApproval(): boolean {
    const target = this.approvalButton();
    if (!target) return false;
    target.focus();
    return true;
  }

  private approvalButton(): HTMLElement | undefined {
    return this.root.querySelector<HTMLElement>('#approvals .approval')?.querySelector<HTMLElement>('button') ?? undefined;
  }


  private check(records: MutationRecord[]): void {
    // Only what was added is looked at: streaming text adds a node a frame, the view has thousands.
    const added = records.length === 0 ? [this.root] : records.flatMap((r) => [...r.addedNodes]);
    for (const node of added) {
      if (!(node instanceof Element)) continue;
      if (node.classList.contains('codicon') && !node.hasAttribute('aria-hidden')) node.setAttribute('aria-hidden', 'true');
      for (const icon of node.querySelectorAll('.codicon:not([aria-hidden])')) icon.setAttribute('aria-hidden', 'true');
    }
    const open = [...this.root.querySelectorAll<HTMLElement>('#approvals .approval[data-request-id]')].map((a) => a.dataset.requestId!);
    const fresh = open.some((id) => !this.seenApprovals.has(id));
    this.seenApprovals = new Set(open);
    if (fresh && !typing()) this.focusApproval();
  }
}

/** Focus is in a text field that holds text: moving it would lose the person's place. */
function typing(): boolean {
  const el = document.activeElement;
  if (el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && !['button', 'checkbox', 'radio', 'submit', 'reset'].includes(el.type))) return el.value !== '';
  return el instanceof HTMLElement && el.isContentEditable;
}
