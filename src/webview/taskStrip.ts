// The background-task strip: one chip per task with status, elapsed, exit code, show output, kill.

import { html, nothing, type TemplateResult } from 'lit';
import type { TaskView } from '../shared/sessionView';
import type { ViewActions } from './viewActions';

const statusIcon: Record<TaskView['status'], string> = { running: 'loading', exited: 'pass', killed: 'circle-slash', lost: 'question' };

export function taskStrip(tasks: TaskView[], actions: ViewActions): TemplateResult {
  if (tasks.length === 0) return html`<div class="task-strip empty"></div>`;
  // Running tasks first, then the most recent finished ones.
  const ordered = [...tasks].sort((a, b) => Number(b.status === 'running') - Number(a.status === 'running') || b.startedAt - a.startedAt);
  return html`<div class="task-strip" role="list" aria-label="Background tasks">${ordered.map((t) => {
    const failed = t.status === 'exited' && t.exitCode !== undefined && t.exitCode !== null && t.exitCode !== 0;
    return html`<div class="task status-${t.status} ${failed ? 'failed' : ''}" role="listitem" data-task-id=${t.id} title=${t.command}>
      <span class="codicon codicon-${failed ? 'error' : statusIcon[t.status]} ${t.status === 'running' ? 'codicon-modifier-spin' : ''}"></span>
      <span class="task-id">${t.id}</span>
      <code class="task-command">${t.command}</code>
      <span class="task-status">${t.status}</span>
      <vigil-elapsed class="task-elapsed" .since=${t.startedAt} .until=${t.status === 'running' ? undefined : t.endedAt ?? t.startedAt}></vigil-elapsed>
      ${t.exitCode !== undefined && t.exitCode !== null ? html`<span class="task-exit">exit ${t.exitCode}</span>` : nothing}
      ${t.signal ? html`<span class="task-exit">${t.signal}</span>` : nothing}
      <button type="button" class="button show-output secondary" title="Show output" @click=${() => actions.post({ type: 'showTaskOutput', taskId: t.id })}><span class="codicon codicon-output" aria-hidden="true"></span>Output</button>
      ${t.status === 'running'
        ? html`<button type="button" class="button kill secondary" title="Kill task" @click=${() => actions.post({ type: 'killTask', taskId: t.id })}><span class="codicon codicon-debug-stop" aria-hidden="true"></span>Kill</button>`
        : nothing}
    </div>`;
  })}</div>`;
}
