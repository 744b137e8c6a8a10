// Structural checks zod cannot express cheaply: depth, node count, string budget and keys that
// would pollute prototypes. Runs before schema parsing on every message crossing the webview boundary.

export interface JsonGuardLimits {
  maxDepth: number;
  maxNodes: number;
  /** Sum of the lengths of all strings and keys. */
  maxChars: number;
}

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

class Rejection {
  readonly path: (string | number)[] = [];
  constructor(readonly reason: string) {}
}

/** Returns undefined when the value is plain JSON-like data within limits, else the reason. */
export function checkJsonShape(value: unknown, limits: JsonGuardLimits): string | undefined {
  const budget = { nodes: 0, chars: 0 };
  try {
    walk(value, 0, limits, budget);
    return undefined;
  } catch (error) {
    if (!(error instanceof Rejection)) throw error;
    // The path is collected only on the way out of a failure: the common case builds no strings.
    const where = error.path.reverse().map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('');
    return where ? `${error.reason} at $${where}` : error.reason;
  }
}

// Recursion is bounded by maxDepth (checked before descending), so hostile nesting cannot blow the stack.
function walk(v: unknown, depth: number, limits: JsonGuardLimits, budget: { nodes: number; chars: number }): void {
  if (++budget.nodes > limits.maxNodes) throw new Rejection(`too many values (more than ${limits.maxNodes})`);
  if (v === null || typeof v === 'boolean') return;
  if (typeof v === 'string') {
    budget.chars += v.length;
    if (budget.chars > limits.maxChars) throw new Rejection(`message larger than ${limits.maxChars} characters`);
    return;
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Rejection('non-finite number');
    return;
  }
  if (typeof v !== 'object') throw new Rejection(`unsupported ${typeof v}`);
  if (depth >= limits.maxDepth) throw new Rejection(`nested deeper than ${limits.maxDepth}`);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      try {
        walk(v[i], depth + 1, limits, budget);
      } catch (error) {
        if (error instanceof Rejection) error.path.push(i);
        throw error;
      }
    }
    return;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) throw new Rejection('not a plain object');
  for (const key in v) {
    if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
    if (forbiddenKeys.has(key)) throw new Rejection(`forbidden key "${key}"`);
    budget.chars += key.length;
    try {
      walk((v as Record<string, unknown>)[key], depth + 1, limits, budget);
    } catch (error) {
      if (error instanceof Rejection) error.path.push(key);
      throw error;
    }
  }
  if (budget.chars > limits.maxChars) throw new Rejection(`message larger than ${limits.maxChars} characters`);
}
