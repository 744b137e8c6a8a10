// zod schema of the agent state the view shows (agentState.ts), checked by the webview like the rest
// of the snapshot. Typed against the view type: a drift between the two is a compile error.

import * as z from 'zod';
import { agentStateLimits as L, type AgentOptionView, type AgentStateView } from './agentState';

const id = z.string().min(1).max(L.id);
const name = z.string().max(L.name);
const description = z.string().max(L.description).optional();
const count = z.number().finite().nonnegative();

const base = { id, name, description, category: z.string().max(L.id).optional(), legacyMode: z.boolean().optional() };

const option: z.ZodType<AgentOptionView> = z.discriminatedUnion('kind', [
  z.strictObject({
    ...base,
    kind: z.literal('select'),
    current: z.string().max(L.id),
    choices: z.array(z.strictObject({ value: z.string().max(L.id), name, description, group: name.optional() })).max(L.choices),
  }),
  z.strictObject({ ...base, kind: z.literal('boolean'), current: z.boolean() }),
]);

export const agentStateSchema: z.ZodType<AgentStateView> = z.strictObject({
  options: z.array(option).max(L.options),
  commands: z.array(z.strictObject({ name: z.string().min(1).max(L.name), description: z.string().max(L.description), hint: z.string().max(L.hint).optional() })).max(L.commands),
  usage: z.strictObject({ used: count, size: count, cost: z.strictObject({ amount: z.number().finite(), currency: z.string().max(L.currency) }).optional() }).optional(),
  pending: z.string().max(L.title).optional(),
});
