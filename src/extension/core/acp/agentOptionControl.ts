// The agent's options as the person changes them: one change at a time, in order, and the person's
// choices given back to a fresh agent session that starts with other values.

import { RequestError } from '@agentclientprotocol/sdk';
import { errorMessage, VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { LiveAgent } from './acpHandleDeps';
import { describeChoice, optionChange, type OptionValue } from './agentOptionChange';
import type { AgentSessionState } from './agentSessionState';

export class AgentOptionControl {
  /** Values the person chose, re-applied when a fresh agent session starts with other ones. */
  private readonly chosen = new Map<string, OptionValue>();
  /** Option changes go to the agent one at a time, in the order the person made them. */
  private changing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly agentState: AgentSessionState,
    private readonly log: Logger,
    private readonly live: () => Promise<LiveAgent>,
  ) {}

  /**
   * Changes one of the agent's options (`session/set_config_option`, or `session/set_mode` for legacy
   * modes). ACP allows it during a turn; the agent's answer replaces the option set. A refusal is an
   * error naming the option, the value and the agent's reason.
   */
  set(configId: string, value: OptionValue): Promise<void> {
    const run = this.changing.catch(() => undefined).then(() => this.apply(configId, value));
    this.changing = run;
    return run;
  }

  private async apply(configId: string, value: OptionValue): Promise<void> {
    const live = await this.live();
    // Checked against the options of the agent that will receive it (a restart may have changed them).
    const change = optionChange(this.agentState.option(configId), configId, value);
    this.agentState.setPending(change.pending);
    try {
      if (change.legacyMode) {
        await live.connection.setMode(live.acpSessionId, value as string);
        this.agentState.modeSet(value as string);
      } else {
        this.agentState.optionsReplaced(await live.connection.setConfigOption(live.acpSessionId, configId, value));
      }
      this.chosen.set(configId, value);
      this.log.info(`${live.label}: ${change.pending}`);
    } catch (error) {
      const reason = error instanceof RequestError ? error.message : errorMessage(error);
      throw new VigilError('AGENT_FAILED', `${live.label} did not change ${change.what}: ${reason}`, { cause: error });
    } finally {
      this.agentState.setPending(undefined);
    }
  }

  /** After a fresh `session/new`: the person's earlier choices, where the new session differs and still offers them. */
  async reapply(live: LiveAgent): Promise<void> {
    for (const [configId, value] of this.chosen) {
      const option = this.agentState.option(configId);
      if (!option || option.current === value) continue;
      if (option.kind === 'select' && (typeof value !== 'string' || !option.choices.some((c) => c.value === value))) continue;
      if (option.kind === 'boolean' && typeof value !== 'boolean') continue;
      try {
        if (option.legacyMode) {
          await live.connection.setMode(live.acpSessionId, value as string);
          this.agentState.modeSet(value as string);
        } else {
          this.agentState.optionsReplaced(await live.connection.setConfigOption(live.acpSessionId, configId, value));
        }
        this.log.info(`${live.label}: restored ${option.name} → ${describeChoice(option, value)}`);
      } catch (error) {
        this.log.warn(`${live.label} did not take back ${option.name} = ${String(value)}: ${errorMessage(error)}`);
      }
    }
  }
}
