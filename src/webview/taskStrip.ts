// The background-task strip: one line per task, so it stays one line in a 300 px side bar: its name (the
// command) first, then how long it has run or how it ended, then Output and (while it runs) Kill as icon
// buttons. The task's id and full command are its tooltip.

import { html, nothing, type TemplateResult } from 'lit';
import type { TaskView } from '../shared/sessionView';
import { taskEndPhrase, taskFailed, taskIcon } from '../shared/taskEnd';
import type { ViewActions } from './viewActions';

/** The command's first line: a multi-line script is named by how it starts. */
function taskName(command: string): string {
  const first = command.trim().split('\n', 1)[0];
  return first.length < command.trim().length ? `${first} …` : first;
}

function taskRow(t: TaskView, actions: ViewActions): TemplateResult {
  const end = { status: t.status, exitCode: t.exitCode ?? null, signal: t.signal ?? null };
  const failed = taskFailed(end);
  const phrase = taskEndPhrase(end);
  const icon = taskIcon(end);
  const name = taskName(t.command);
  return html`<div class="task status-${t.status} ${failed ? 'failed' : ''}" role="listitem" data-task-id=${t.id} title="${t.id}: ${t.command}">
    <span class="codicon codicon-${icon.name} ${icon.spin ? 'codicon-modifier-spin' : ''}" role="img" aria-label=${phrase}></span>
    <code class="task-command">${name}</code>
    <span class="task-state">${t.status === 'running'
      ? html`<vigil-elapsed class="task-elapsed" .since=${t.startedAt}></vigil-elapsed>`
      : html`<span class="task-exit">${phrase}</span>`}</span>
    <button type="button" class="icon-button show-output" title="Show output" aria-label="Show output of ${name}"
      @click=${() => actions.post({ type: 'showTaskOutput', taskId: t.id })}><span class="codicon codicon-output" aria-hidden="true"></span></button>
    ${t.status === 'running'
      ? html`<button type="button" class="icon-button kill" title="Kill task" aria-label="Kill ${name}"
          @click=${() => actions.post({ type: 'killTask', taskId: t.id })}><span class="codicon codicon-debug-stop" aria-hidden="true"></span></button>`
      : nothing}
  </div>`;
}

export function taskStrip(tasks: TaskView[], actions: ViewActions): TemplateResult {
  if (tasks.length === 0) return html`<div class="task-strip empty"></div>`;
  // Running tasks first, then the most recent finished ones.
  const ordered = [...tasks].sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running') || b.startedAt - a.startedAt);
  return html`<div class="task-strip" role="list" aria-label="Background tasks">${ordered.map((t) => taskRow(t, actions))}</div>`;
}
