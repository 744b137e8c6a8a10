// Reads what an agent says about its options, modes, commands, usage and title into bounded, clean
// view data. Everything arrives from a hostile process: strings are cut and stripped of control
// characters, lists are capped, and an entry that does not fit the ACP shape is skipped, not fatal.

import {
  agentStateLimits as L,
  type AgentChoiceView,
  type AgentCommandView,
  type AgentOptionView,
  type AgentUsageView,
} from '../../../shared/agentState';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Control and bidi-override characters: a name must not reorder or hide what is shown around it. */
// eslint-disable-next-line no-control-regex
const unsafeChars = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const hasUnsafeChar = new RegExp(unsafeChars.source);

/** Display text: one line, no control characters, at most `max` characters (an ellipsis marks a cut). */
export function cleanText(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  const line = v.slice(0, max * 4).replace(unsafeChars, ' ').replace(/\s+/g, ' ').trim();
  if (line === '') return undefined;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** An identifier is echoed back to the agent, so it is kept exactly or refused (never cut or changed). */
function cleanId(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 && v.length <= L.id ? v : undefined;
}

function choice(raw: unknown, group: string | undefined): AgentChoiceView | undefined {
  if (!isObj(raw)) return undefined;
  const value = cleanId(raw.value);
  if (value === undefined) return undefined;
  const description = cleanText(raw.description, L.description);
  return { value, name: cleanText(raw.name, L.name) ?? value, ...(description ? { description } : {}), ...(group ? { group } : {}) };
}

/** ACP lets a select list its values flat or in groups; both become one flat, capped list. */
function choices(raw: unknown): AgentChoiceView[] {
  if (!Array.isArray(raw)) return [];
  const out: AgentChoiceView[] = [];
  const seen = new Set<string>();
  const add = (c: AgentChoiceView | undefined) => {
    if (!c || seen.has(c.value) || out.length >= L.choices) return;
    seen.add(c.value);
    out.push(c);
  };
  for (const item of raw.slice(0, L.choices * 2)) {
    if (isObj(item) && Array.isArray(item.options)) {
      const group = cleanText(item.name, L.name) ?? cleanText(item.group, L.name);
      for (const inner of item.options.slice(0, L.choices)) add(choice(inner, group));
    } else add(choice(item, undefined));
  }
  return out;
}

function option(raw: unknown): AgentOptionView | undefined {
  if (!isObj(raw)) return undefined;
  const id = cleanId(raw.id);
  if (id === undefined) return undefined;
  const name = cleanText(raw.name, L.name) ?? id;
  const description = cleanText(raw.description, L.description);
  const category = typeof raw.category === 'string' && raw.category.length <= L.id ? raw.category : undefined;
  const base = { id, name, ...(description ? { description } : {}), ...(category ? { category } : {}) };
  if (raw.type === 'boolean') return typeof raw.currentValue === 'boolean' ? { ...base, kind: 'boolean', current: raw.currentValue } : undefined;
  if (raw.type === 'select') {
    const current = cleanId(raw.currentValue);
    if (current === undefined) return undefined;
    return { ...base, kind: 'select', current, choices: choices(raw.options) };
  }
  // An option type this client does not know is skipped (ACP: clients ignore what they cannot show).
  return undefined;
}

/** ACP `configOptions`; `undefined` when the agent sent none (not an empty list). */
export function parseConfigOptions(raw: unknown): AgentOptionView[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: AgentOptionView[] = [];
  const seen = new Set<string>();
  for (const item of raw.slice(0, L.options * 4)) {
    const o = option(item);
    if (!o || seen.has(o.id) || out.length >= L.options) continue;
    seen.add(o.id);
    out.push(o);
  }
  return out;
}

/** The id under which legacy modes appear as an option (never sent to the agent as a config id). */
export const legacyModeId = 'mode';

/** ACP `SessionModeState` as one select option set with `session/set_mode`. */
export function parseModes(raw: unknown): AgentOptionView | undefined {
  if (!isObj(raw)) return undefined;
  const current = cleanId(raw.currentModeId);
  if (current === undefined || !Array.isArray(raw.availableModes)) return undefined;
  const list = choices(raw.availableModes.map((m: unknown) => (isObj(m) ? { value: m.id, name: m.name, description: m.description } : undefined)));
  return { id: legacyModeId, name: 'Mode', category: 'mode', legacyMode: true, kind: 'select', current, choices: list };
}

/** Command names are inserted as `/name ` in the composer: one token of printable characters. */
const commandName = /^[^\s/][^\s]*$/u;

export function parseCommands(raw: unknown): AgentCommandView[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: AgentCommandView[] = [];
  const seen = new Set<string>();
  for (const item of raw.slice(0, L.commands * 4)) {
    if (!isObj(item) || typeof item.name !== 'string') continue;
    // A leading slash is tolerated (some agents include it); the rest must be one clean token.
    const name = item.name.replace(/^\//, '');
    if (name.length > L.name || !commandName.test(name) || hasUnsafeChar.test(name) || seen.has(name)) continue;
    if (out.length >= L.commands) break;
    seen.add(name);
    const hint = isObj(item.input) ? cleanText(item.input.hint, L.hint) : undefined;
    out.push({ name, description: cleanText(item.description, L.description) ?? '', ...(hint ? { hint } : {}) });
  }
  return out;
}

const maxTokens = 1e12;

export function parseUsage(raw: Obj): AgentUsageView | undefined {
  const { used, size } = raw;
  if (typeof used !== 'number' || typeof size !== 'number' || !Number.isFinite(used) || !Number.isFinite(size)) return undefined;
  if (used < 0 || size < 0 || used > maxTokens || size > maxTokens) return undefined;
  const usage: AgentUsageView = { used: Math.round(used), size: Math.round(size) };
  const cost = raw.cost;
  if (isObj(cost) && typeof cost.amount === 'number' && Number.isFinite(cost.amount) && Math.abs(cost.amount) < 1e9) {
    const currency = typeof cost.currency === 'string' && /^[A-Za-z0-9 _.-]{1,16}$/.test(cost.currency) ? cost.currency : undefined;
    if (currency) usage.cost = { amount: cost.amount, currency };
  }
  return usage;
}

/** `session_info_update`'s title: a clean line, or `undefined` (absent, cleared, or nothing left of it). */
export function parseTitle(raw: unknown): string | undefined {
  return cleanText(raw, L.title);
}
