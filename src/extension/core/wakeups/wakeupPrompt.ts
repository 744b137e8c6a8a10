// The one formatter of wakeup prompts: how a background completion reads to the agent.

import { wakeupPrefix } from '../../../shared/agentProtocol/vigilMethods';
import { taskEndPhrase, taskEndSentence } from '../tasks/taskEnd';
import type { TaskCompletion } from '../tasks/taskTypes';

export function formatCompletion(c: TaskCompletion): string {
  const lines = [`${wakeupPrefix}${c.taskId} ${headline(c)}.`, `Command: ${c.command}`];
  if (c.kind === 'pattern' && c.matchedLine !== undefined) lines.push(`Matched line: ${c.matchedLine}`);
  if (c.output.length === 0) lines.push('Output: (none)');
  else lines.push(`Output${c.outputTruncated ? ` (last ${c.output.length} characters)` : ''}:`, c.output.replace(/\s+$/, ''));
  return lines.join('\n') + ']';
}

/** Several completions in one turn, oldest first, separated by a blank line. */
export function formatWakeupPrompt(completions: readonly TaskCompletion[]): string {
  return completions.map(formatCompletion).join('\n\n');
}

function headline(c: TaskCompletion): string {
  if (c.kind === 'pattern') return `matched "${c.pattern ?? ''}" (still running)`;
  switch (c.status) {
    case 'exited':
      return `completed (${taskEndPhrase(c)})`;
    case 'killed':
    case 'lost':
      return taskEndSentence(c);
    case 'running':
      return 'reported while still running';
    default: {
      const never: never = c.status;
      return String(never);
    }
  }
}
