// One resolver for `vigil.turnLiveness.*`: never throws, falls back to defaults, warns once per bad key.

import type { Logger } from '../ports/logger';

export interface LivenessSettings {
  /** False when `timeoutSeconds` ≤ 0: no watchdog is armed at all. */
  enabled: boolean;
  /** Bound while waiting on the model, the agent, or an observable client terminal. */
  timeoutMs: number;
  /** Bound while an agent-side tool runs whose progress we cannot observe. */
  toolTimeoutMs: number;
  /** How long a cancelled agent gets to unwind before its process tree is killed. */
  graceMs: number;
}

export const LIVENESS_DEFAULTS = { timeoutSeconds: 300, toolTimeoutSeconds: 1800, graceSeconds: 10 } as const;

type Key = keyof typeof LIVENESS_DEFAULTS;
const KEYS = Object.keys(LIVENESS_DEFAULTS) as Key[];

/**
 * Keeps the set of keys already warned about, so a bad value that is re-read on every turn
 * is reported once and not on every prompt.
 */
export class LivenessSettingsResolver {
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

  resolve(raw: unknown): LivenessSettings {
    const section = isRecord(raw) ? raw : {};
    if (raw !== undefined && raw !== null && !isRecord(raw)) this.warnOnce('(section)', `vigil.turnLiveness must be an object; using defaults`);
    for (const key of Object.keys(section)) {
      if (!(KEYS as string[]).includes(key)) this.warnOnce(key, `Unknown setting vigil.turnLiveness.${key} is ignored`);
    }
    const timeout = this.number(section, 'timeoutSeconds', () => true);
    const tool = this.number(section, 'toolTimeoutSeconds', (v) => v > 0);
    const grace = this.number(section, 'graceSeconds', (v) => v >= 0);
    return {
      enabled: timeout > 0,
      timeoutMs: Math.max(0, timeout * 1000),
      toolTimeoutMs: tool * 1000,
      graceMs: grace * 1000,
    };
  }

  private number(section: Record<string, unknown>, key: Key, valid: (v: number) => boolean): number {
    const value = section[key];
    const fallback = LIVENESS_DEFAULTS[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || !valid(value)) {
      this.warnOnce(key, `vigil.turnLiveness.${key} has an invalid value (${describe(value)}); using the default ${fallback}`);
      return fallback;
    }
    return value;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(message);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  try {
    return `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
  } catch {
    return typeof value;
  }
}
