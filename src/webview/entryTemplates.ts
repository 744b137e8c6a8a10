// One template per transcript entry kind. Each entry carries `.entry.<kind>` and data-entry-id.

import { html, nothing, type TemplateResult } from 'lit';
import type { EntryView, PlanItemView } from '../shared/sessionView';
import { openFileLink } from './fileLinks';
import { markdown } from './markdown';
import { copyButton } from './messageCopy';
import { editButton, redoLabel } from './messageEdit';
import { toolCallCard } from './toolCallCard';
import { checkpointTemplate } from './checkpointView';
import { editsEntry } from './diffSummary';
import { noticeContent } from './noticesView';
import type { ViewActions } from './viewActions';

const attachmentIcon = { file: 'file', selection: 'selection', problems: 'warning', image: 'file-media' } as const;
const planIcon: Record<PlanItemView['status'], string> = { pending: 'circle-outline', in_progress: 'arrow-right', completed: 'pass-filled' };

/** `edit`: the entry is the person's last message and may be edited now (messageEdit.ts). */
export function renderEntry(entry: EntryView, actions: ViewActions, edit?: (entry: Extract<EntryView, { kind: 'user' }>) => void): TemplateResult {
  switch (entry.kind) {
    case 'user':
      return html`<div class="entry user" data-entry-id=${entry.id} data-source=${entry.source ?? 'user'} data-redo=${entry.redo?.how ?? nothing}>
        ${copyButton(entry.id, 'your message', actions)}
        ${edit ? editButton(entry, edit) : nothing}
        <div class="who"><span class="codicon codicon-account"></span> You${entry.source === 'resume' ? ' (resume)' : ''}${redoLabel(entry.redo)}</div>
        <div class="text">${entry.text}</div>
        ${entry.attachments?.length
          ? html`<ul class="entry-attachments" aria-label="Attached">${entry.attachments.map(
              (a) => html`<li class="entry-attachment" data-kind=${a.kind} title=${a.uri ?? a.name}><span class="codicon codicon-${attachmentIcon[a.kind]}"></span>${a.name}</li>`,
            )}</ul>`
          : nothing}
      </div>`;
    case 'agent':
      return html`<div class="entry agent ${entry.streaming ? 'streaming' : ''}" data-entry-id=${entry.id}>
        ${copyButton(entry.id, 'the agent’s message', actions)}
        <div class="markdown" @click=${(e: Event) => openFileLink(e, actions)} @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && openFileLink(e, actions)}>${markdown(entry.id, entry.markdown, actions.workspaceRoot())}</div>
      </div>`;
    case 'thought':
      return html`<details class="entry thought ${entry.streaming ? 'streaming' : ''}" data-entry-id=${entry.id}>
        <summary><span class="codicon codicon-lightbulb"></span> Thinking${entry.streaming ? '…' : ''}</summary>
        <div class="text">${entry.text}</div>
      </details>`;
    case 'toolCall':
      return html`<div class="entry tool-call" data-entry-id=${entry.id} data-tool-call-id=${entry.toolCall.toolCallId} data-status=${entry.toolCall.status}>
        ${toolCallCard(entry.toolCall, actions)}
      </div>`;
    case 'plan':
      return html`<div class="entry plan" data-entry-id=${entry.id}>
        <div class="label"><span class="codicon codicon-checklist"></span> Plan</div>
        <ul>${entry.items.map((item) => html`<li class="plan-item ${item.status}" data-priority=${item.priority}>
          <span class="codicon codicon-${planIcon[item.status]}"></span> ${item.content}</li>`)}</ul>
      </div>`;
    case 'notice':
      return html`<div class="entry notice notice-${entry.notice.kind}" data-entry-id=${entry.id}>${noticeContent(entry.notice)}</div>`;
    case 'wakeup':
      return html`<div class="entry wakeup" data-entry-id=${entry.id}>
        <div class="who"><span class="codicon codicon-bell"></span> Background ${entry.taskIds.length === 1 ? 'task' : 'tasks'} ${entry.taskIds.join(', ')} woke the agent</div>
        ${entry.text ? html`<details><summary>Details</summary><pre>${entry.text}</pre></details>` : nothing}
      </div>`;
    case 'checkpoint':
      return checkpointTemplate(entry, actions);
    case 'edits':
      return editsEntry(entry.id, entry.files, actions);
  }
}
