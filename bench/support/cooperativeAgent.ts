// What the abort benches share: an agent that answers `cancel` at once, and how figures are printed.

import { loadNote } from './cpuHogs';
import type { AgentHandle, AgentHandleProvider, PromptOutcome, PromptRequest } from '../../src/extension/core/ports/agentHandle';

/** Answers `cancel` at once: the cooperative agent of the abort figures. */
export class CooperativeAgent implements AgentHandleProvider, AgentHandle {
  private pending: ((o: PromptOutcome) => void) | undefined;
  async get(): Promise<AgentHandle> {
    return this;
  }
  prompt(_r: PromptRequest): Promise<PromptOutcome> {
    return new Promise((resolve) => (this.pending = resolve));
  }
  async cancel(): Promise<void> {
    this.pending?.({ stopReason: 'cancelled' });
  }
  async kill(): Promise<void> {
    this.pending?.({ stopReason: 'cancelled' });
  }
}

export const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
/** One figure per line, with the load it was measured on (the machine is shared). */
export const print = (name: string, value: number, unit: string): void => console.log(`${name}: ${value.toFixed(value < 10 ? 2 : 1)} ${unit} (${loadNote()})`);
