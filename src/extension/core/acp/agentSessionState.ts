// What one session's agent has told us about itself: options (ACP `configOptions`, else legacy modes),
// slash commands, context usage and its title for the session. Kept on the host whether or not a
// prompt runs (agents send these at any time), and published as view data to whoever shows it.

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { emptyAgentState, STATE_UPDATES, type AgentCommandView, type AgentOptionView, type AgentStateView, type AgentUsageView } from '../../../shared/agentState';
import { EventHub, type Unsubscribe } from '../common/events';
import { parseCommands, parseConfigOptions, parseModes, parseTitle, parseUsage } from './agentStateParse';

export type AgentStateChange =
  | { kind: 'state'; state: AgentStateView }
  /** The agent named the session (`session_info_update`); whether to adopt it is the host's call. */
  | { kind: 'title'; title: string };

/** The session updates this module owns; the rest is the turn's activity. */
const stateUpdates = new Set(STATE_UPDATES);

export function isStateUpdate(update: { sessionUpdate?: unknown }): boolean {
  return typeof update.sessionUpdate === 'string' && stateUpdates.has(update.sessionUpdate);
}

export class AgentSessionState {
  /** `undefined` while the agent offers no `configOptions` (then its legacy modes, if any, stand in). */
  private configOptions: AgentOptionView[] | undefined;
  private modes: (AgentOptionView & { kind: 'select' }) | undefined;
  private commands: AgentCommandView[] = [];
  private usage: AgentUsageView | undefined;
  private pending: string | undefined;
  private view: AgentStateView = emptyAgentState();
  private readonly hub = new EventHub<AgentStateChange>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => undefined) {}

  subscribe(listener: (change: AgentStateChange) => void): Unsubscribe {
    return this.hub.subscribe(listener);
  }

  get snapshot(): AgentStateView {
    return this.view;
  }

  option(id: string): AgentOptionView | undefined {
    return this.view.options.find((o) => o.id === id);
  }

  /** A fresh agent process: what the old one said no longer holds (its commands, its session's usage). */
  reset(): void {
    this.configOptions = undefined;
    this.modes = undefined;
    this.commands = [];
    this.usage = undefined;
    this.pending = undefined;
    this.publish();
  }

  /** The answer to `session/new`, `session/load` or `session/resume`: the initial options and modes. */
  opened(response: unknown): void {
    const r = (response ?? {}) as { configOptions?: unknown; modes?: unknown };
    // An answer without them keeps what updates sent before it (reset() already cleared the last process's).
    this.configOptions = parseConfigOptions(r.configOptions) ?? this.configOptions;
    this.modes = (parseModes(r.modes) as typeof this.modes) ?? this.modes;
    this.publish();
  }

  /** The answer to `session/set_config_option`: the agent's full option set replaces ours. */
  optionsReplaced(configOptions: unknown): void {
    const parsed = parseConfigOptions(configOptions);
    if (parsed) this.configOptions = parsed;
    this.publish();
  }

  /** `session/set_mode` succeeded (its answer carries no state; ACP says the mode is now `modeId`). */
  modeSet(modeId: string): void {
    if (this.modes) this.modes = { ...this.modes, current: modeId };
    this.publish();
  }

  setPending(text: string | undefined): void {
    if (this.pending === text) return;
    this.pending = text;
    this.publish();
  }

  /** Folds one `session/update` in; returns whether it was one of this module's. Malformed ones change nothing. */
  apply(update: SessionUpdate | Record<string, unknown>): boolean {
    const u = update as Record<string, unknown>;
    switch (u.sessionUpdate) {
      case 'config_option_update': {
        const parsed = parseConfigOptions(u.configOptions);
        if (parsed) {
          this.configOptions = parsed;
          this.publish();
        }
        return true;
      }
      case 'current_mode_update':
        if (this.modes && typeof u.currentModeId === 'string' && u.currentModeId.length <= 256) this.modeSet(u.currentModeId);
        return true;
      case 'available_commands_update': {
        const parsed = parseCommands(u.availableCommands);
        if (parsed) {
          this.commands = parsed;
          this.publish();
        }
        return true;
      }
      case 'usage_update': {
        const usage = parseUsage(u);
        if (usage) {
          this.usage = usage;
          this.publish();
        }
        return true;
      }
      case 'session_info_update': {
        // A cleared (null) title leaves the session's name as it is: the person still needs one.
        const title = parseTitle(u.title);
        if (title) this.hub.emit({ kind: 'title', title }, this.onListenerError);
        return true;
      }
      default:
        return false;
    }
  }

  private publish(): void {
    const options = this.configOptions && this.configOptions.length > 0 ? this.configOptions : this.modes ? [this.modes] : [];
    this.view = {
      options,
      commands: this.commands,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.pending ? { pending: this.pending } : {}),
    };
    this.hub.emit({ kind: 'state', state: this.view }, this.onListenerError);
  }
}
