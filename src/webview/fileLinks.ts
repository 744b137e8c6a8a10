// Clicks on workspace-file links in model markdown: the host is asked to open the file (and checks
// it is inside the workspace); VS Code's own link handling never sees these clicks.

import type { ViewActions } from './viewActions';

export function openFileLink(event: Event, actions: ViewActions): void {
  const link = event.composedPath().find((node): node is HTMLElement => node instanceof HTMLElement && node.dataset.vigilFile !== undefined);
  if (!link) return;
  event.preventDefault();
  event.stopPropagation();
  const path = link.dataset.vigilFile!;
  const line = Number(link.dataset.vigilLine);
  actions.post(Number.isInteger(line) && line >= 1 ? { type: 'openFile', path, line } : { type: 'openFile', path });
}
