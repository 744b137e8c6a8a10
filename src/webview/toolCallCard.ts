// A tool call as a card: kind icon, title, status, duration; inputs, output and diffs on expand.

import { html, nothing, type TemplateResult } from 'lit';
import { TOOL_ENDED_TEXT, type ToolCallView, type ToolContentView, type ToolKindView, type ToolStatusView } from '../shared/sessionView';
import { formatJson, truncate } from './format';
import { diffLines } from '../shared/lineDiff';
import type { ViewActions } from './viewActions';
import { editList } from './diffSummary';

const kindIcon: Record<ToolKindView, string> = {
  read: 'file', edit: 'edit', delete: 'trash', move: 'arrow-swap', search: 'search', execute: 'terminal',
  think: 'lightbulb', fetch: 'globe', switch_mode: 'settings-gear', other: 'tools',
};

const statusIcon: Record<ToolStatusView, string> = {
  pending: 'circle-outline', in_progress: 'loading', completed: 'pass', failed: 'error', cancelled: 'circle-slash', ended: 'circle-slash',
};

const statusLabel: Record<ToolStatusView, string> = {
  pending: 'pending', in_progress: 'running', completed: 'done', failed: 'failed', cancelled: 'cancelled', ended: TOOL_ENDED_TEXT,
};

const outputLimit = 20_000;

export function toolCallCard(call: ToolCallView, actions: ViewActions): TemplateResult {
  const live = call.status === 'pending' || call.status === 'in_progress';
  const hasDiff = call.content.some((c) => c.type === 'diff') || (call.edits?.length ?? 0) > 0;
  return html`<details class="tool-card" ?open=${live || hasDiff}>
    <summary>
      <span class="codicon codicon-${kindIcon[call.kind]}"></span>
      <span class="tool-title">${call.title}</span>
      <span class="tool-status status-${call.status}" title=${call.status}>
        <span class="codicon codicon-${statusIcon[call.status]} ${call.status === 'in_progress' ? 'codicon-modifier-spin' : ''}"></span>
        ${statusLabel[call.status]}
      </span>
      ${call.startedAt !== undefined
        ? html`<vigil-elapsed class="tool-duration" .since=${call.startedAt} .until=${live ? undefined : call.endedAt ?? call.startedAt}></vigil-elapsed>`
        : nothing}
    </summary>
    ${call.rawInput !== undefined ? html`<div class="tool-section tool-input"><div class="label">Input</div><pre>${formatJson(call.rawInput)}</pre></div>` : nothing}
    ${call.locations && call.locations.length > 0
      ? html`<div class="tool-section tool-locations">${call.locations.map((l) => html`<code>${l.path}${l.line !== undefined ? `:${l.line}` : ''}</code> `)}</div>`
      : nothing}
    ${call.content.map((c) => toolContent(c, actions))}
    ${call.edits?.length ? html`<div class="tool-section tool-edits">${editList(call.edits, actions)}</div>` : nothing}
    ${call.rawOutput !== undefined && !call.content.some((c) => c.type === 'text')
      ? html`<div class="tool-section tool-output"><div class="label">Output</div><pre>${formatJson(call.rawOutput, outputLimit)}</pre></div>`
      : nothing}
  </details>`;
}

function toolContent(content: ToolContentView, actions: ViewActions): TemplateResult {
  switch (content.type) {
    case 'text':
      return html`<div class="tool-section tool-output"><div class="label">Output</div><pre>${truncate(content.text, outputLimit)}</pre></div>`;
    case 'diff':
      return diffView(content.path, content.oldText ?? '', content.newText);
    case 'terminal':
      return html`<div class="tool-section tool-terminal">
        <span class="codicon codicon-terminal"></span> terminal ${content.terminalId}
        <button type="button" class="button secondary show-terminal" @click=${() => actions.post({ type: 'showTaskOutput', taskId: content.terminalId })}>Show output</button>
      </div>`;
  }
}

function diffView(path: string, oldText: string, newText: string): TemplateResult {
  const lines = diffLines(oldText, newText);
  return html`<div class="tool-section diff" data-path=${path}>
    <div class="label"><span class="codicon codicon-diff"></span> ${path}${oldText === '' ? ' (new file)' : ''}</div>
    <pre>${lines.map((l) =>
      l.op === '…'
        ? html`<div class="diff-line diff-skip">⋯ ${l.skipped} unchanged line${l.skipped === 1 ? '' : 's'}</div>`
        : html`<div class="diff-line ${l.op === '+' ? 'diff-add' : l.op === '-' ? 'diff-del' : 'diff-ctx'}">${l.op} ${l.text}</div>`,
    )}</pre>
  </div>`;
}
