// What the session's agent says about itself, as the view shows it: its options (ACP `configOptions`,
// or legacy modes folded into one select), its slash commands and its context usage. Plain data,
// already bounded and cleaned by the host; the webview validates it again (agentStateSchema.ts).

/** One value of a select option; `group` names the ACP value group it was listed under, if any. */
export interface AgentChoiceView {
  value: string;
  name: string;
  description?: string;
  group?: string;
}

interface AgentOptionBase {
  id: string;
  name: string;
  description?: string;
  /** ACP category (`model`, `mode`, `thought_level`, `model_config`, or the agent's own). */
  category?: string;
  /** True for the legacy `modes` of an agent without `configOptions`: set with `session/set_mode`. */
  legacyMode?: boolean;
}

export type AgentOptionView =
  | (AgentOptionBase & { kind: 'select'; current: string; choices: AgentChoiceView[] })
  | (AgentOptionBase & { kind: 'boolean'; current: boolean });

export interface AgentCommandView {
  name: string;
  description: string;
  /** What to type after the command, when it takes input. */
  hint?: string;
}

export interface AgentUsageView {
  /** Tokens in context now, and the context window's size. */
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
}

export interface AgentStateView {
  options: AgentOptionView[];
  commands: AgentCommandView[];
  usage?: AgentUsageView;
  /** A change the person asked for that the agent has not answered yet, e.g. "Mode → Plan". */
  pending?: string;
}

/** Bounds on everything an agent can make the view hold. */
export const agentStateLimits = {
  options: 32,
  choices: 200,
  commands: 200,
  id: 256,
  name: 100,
  description: 500,
  hint: 200,
  title: 200,
  currency: 16,
} as const;

export function emptyAgentState(): AgentStateView {
  return { options: [], commands: [] };
}

/** The name of a select option's current value (its id when the agent did not list it). */
export function currentChoiceName(option: Extract<AgentOptionView, { kind: 'select' }>): string {
  return option.choices.find((c) => c.value === option.current)?.name ?? option.current;
}

/** The first option of a category: the header's model and mode. */
export function optionOfCategory(state: AgentStateView | undefined, category: string): AgentOptionView | undefined {
  return state?.options.find((o) => o.category === category);
}

/**
 * The session updates that describe the session rather than the turn (ACP `sessionUpdate` kinds): its options,
 * mode, commands, title and usage. The host keeps them as the session's state, and the agent relay keeps the
 * latest of each for the next window.
 */
export const STATE_UPDATES: readonly string[] = ['config_option_update', 'current_mode_update', 'available_commands_update', 'session_info_update', 'usage_update'];
