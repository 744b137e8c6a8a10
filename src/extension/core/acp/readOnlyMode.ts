// A third-party agent allowed in Restricted Mode starts in its read-only or plan mode, where it offers one through
// ACP (`configOptions` of category `mode`, or legacy `modes`): Codex's "Read Only", Claude's and OpenCode's "Plan".
// The agent keeps to it, not Vigil; an agent without such a mode runs with its own defaults, and the log says so.

import type { AgentOptionView } from '../../../shared/agentState';
import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { AgentSessionState } from './agentSessionState';

type Select = Extract<AgentOptionView, { kind: 'select' }>;

/** Mode names that mean "reads and plans, changes nothing", normalised (lower case, letters and digits only). */
const readOnlyNames = ['readonly', 'readonlymode'];
const planNames = ['plan', 'planmode', 'planning'];

const normal = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The mode option and the value that makes the agent read-only (preferred) or plan-only; undefined when it offers neither. */
export function readOnlyChoice(options: readonly AgentOptionView[]): { option: Select; value: string } | undefined {
  const modes = options.filter((o): o is Select => o.kind === 'select' && o.category === 'mode');
  for (const names of [readOnlyNames, planNames]) {
    for (const option of modes) {
      const choice = option.choices.find((c) => names.includes(normal(c.value)) || names.includes(normal(c.name)));
      if (choice) return { option, value: choice.value };
    }
  }
  return undefined;
}

export interface ModeSetter {
  setMode(acpSessionId: string, modeId: string): Promise<void>;
  setConfigOption(acpSessionId: string, configId: string, value: string): Promise<unknown>;
}

/**
 * Puts a freshly opened agent session into its read-only or plan mode. Never fails the start: an agent that refuses
 * keeps its mode, and the log says so (the session header shows the mode it is in).
 */
export async function enterReadOnlyMode(o: { state: AgentSessionState; connection: ModeSetter; acpSessionId: string; log: Logger; label: string }): Promise<void> {
  const chosen = readOnlyChoice(o.state.snapshot.options);
  if (!chosen) {
    o.log.warn(`${o.label}: Restricted Mode: the agent offers no read-only or plan mode, so it runs in its own default mode`);
    return;
  }
  const { option, value } = chosen;
  const name = option.choices.find((c) => c.value === value)?.name ?? value;
  if (option.current === value) {
    o.log.info(`${o.label}: Restricted Mode: already in ${option.name} → ${name}`);
    return;
  }
  try {
    if (option.legacyMode) {
      await o.connection.setMode(o.acpSessionId, value);
      o.state.modeSet(value);
    } else {
      o.state.optionsReplaced(await o.connection.setConfigOption(o.acpSessionId, option.id, value));
    }
    o.log.info(`${o.label}: Restricted Mode: started in ${option.name} → ${name}`);
  } catch (error) {
    o.log.warn(`${o.label}: Restricted Mode: the agent did not switch to ${option.name} → ${name}: ${errorMessage(error)}; it runs in its current mode`);
  }
}
