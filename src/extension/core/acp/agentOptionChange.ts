// Checks a change of one agent option before it is sent: the option must be one the agent offers and
// the value one of its values (or a boolean for a toggle); says in words what is being changed.

import type { AgentOptionView } from '../../../shared/agentState';
import { VigilError } from '../common/errors';

export type OptionValue = string | boolean;

export interface CheckedChange {
  /** "Mode → Plan", shown while the agent has not answered. */
  pending: string;
  /** "Mode to Plan", for an error message. */
  what: string;
  legacyMode: boolean;
}

export function describeChoice(option: AgentOptionView, value: OptionValue): string {
  if (option.kind === 'boolean') return value === true ? 'on' : 'off';
  return option.choices.find((c) => c.value === value)?.name ?? String(value);
}

export function optionChange(option: AgentOptionView | undefined, configId: string, value: OptionValue): CheckedChange {
  if (!option) throw new VigilError('INVALID_INPUT', `The agent offers no option "${configId.slice(0, 80)}" (any more); open the picker again to see what it offers now.`);
  if (option.kind === 'boolean' && typeof value !== 'boolean') throw new VigilError('INVALID_INPUT', `${option.name} is on or off, not "${String(value).slice(0, 80)}".`);
  if (option.kind === 'select' && (typeof value !== 'string' || !option.choices.some((c) => c.value === value))) {
    throw new VigilError('INVALID_INPUT', `${option.name} has no value "${String(value).slice(0, 80)}"; the agent offers: ${option.choices.map((c) => c.name).slice(0, 10).join(', ')}.`);
  }
  const shown = describeChoice(option, value);
  return { pending: `${option.name} → ${shown}`, what: `${option.name} to ${shown}`, legacyMode: option.legacyMode === true };
}
