// A session's ACP options: its mode (ask / plan / code) and its model (from the provider's list), offered as
// `configOptions` (and the mode also as legacy `modes`, for clients without config options), and changed by
// `session/set_config_option` or `session/set_mode`. A value the session does not offer is refused, not guessed.

import { RequestError, type SessionConfigOption, type SessionModeState } from '@agentclientprotocol/sdk';
import { agentModes, isAgentMode, modeInfo } from './modes';
import type { ModelChoice } from './modelList';
import type { AgentSession } from './session';

export const modeConfigId = 'mode';
export const modelConfigId = 'model';

export function configOptionsOf(session: AgentSession, models: readonly ModelChoice[], providerName: string): SessionConfigOption[] {
  const listed = models.some((m) => m.id === session.model) ? models : [{ id: session.model }, ...models];
  return [
    {
      id: modeConfigId,
      name: 'Mode',
      description: 'What the agent may do: answer, plan, or edit and run.',
      category: 'mode',
      type: 'select',
      currentValue: session.mode,
      options: agentModes.map((m) => ({ value: m, name: modeInfo[m].name, description: modeInfo[m].description })),
    },
    {
      id: modelConfigId,
      name: 'Model',
      description: `The model of this session (${providerName}).`,
      category: 'model',
      type: 'select',
      currentValue: session.model,
      options: listed.map((m) => ({ value: m.id, name: m.id === 'demo' ? 'demo model' : m.id, ...(m.contextWindow ? { description: `${m.contextWindow.toLocaleString('en-US')} tokens of context` } : {}) })),
    },
  ];
}

export function modeStateOf(session: AgentSession): SessionModeState {
  return { currentModeId: session.mode, availableModes: agentModes.map((m) => ({ id: m, name: modeInfo[m].name, description: modeInfo[m].description })) };
}

/** Sets one option of the session; returns which one changed (nothing when the value was already set). */
export function applyOption(session: AgentSession, configId: string, value: unknown, models: readonly ModelChoice[]): 'mode' | 'model' | undefined {
  if (configId === modeConfigId) {
    if (!isAgentMode(value)) throw RequestError.invalidParams(undefined, `unknown mode ${JSON.stringify(value)}; the modes are ${agentModes.join(', ')}`);
    if (session.mode === value) return undefined;
    session.mode = value;
    return 'mode';
  }
  if (configId === modelConfigId) {
    const choice = typeof value === 'string' ? models.find((m) => m.id === value) ?? (value === session.model ? { id: value } : undefined) : undefined;
    if (!choice) throw RequestError.invalidParams(undefined, `the model ${JSON.stringify(value)} is not offered; choose one of the session's models`);
    if (session.model === choice.id) return undefined;
    session.model = choice.id;
    session.modelWindow = choice.contextWindow;
    return 'model';
  }
  throw RequestError.invalidParams(undefined, `unknown option ${JSON.stringify(configId)}; the options are ${modeConfigId} and ${modelConfigId}`);
}
