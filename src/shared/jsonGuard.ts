// Structural checks zod cannot express cheaply: depth, node count, string budget and keys that
// would pollute prototypes. Runs before schema parsing on every message crossing the webview boundary.

export interface JsonGuardLimits {
  maxDepth: number;
  maxNodes: number;
  /** Sum of the lengths of all strings and keys. */
  maxChars: number;
}

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** Returns undefined when the value is plain JSON-like data within limits, else the reason. */
export function checkJsonShape(value: unknown, limits: JsonGuardLimits): string | undefined {
  let nodes = 0;
  let chars = 0;
  // Iterative walk: a hostile message must not be able to blow the stack.
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: '$' }];
  while (stack.length > 0) {
    const { value: v, depth, path } = stack.pop()!;
    if (++nodes > limits.maxNodes) return `too many values (more than ${limits.maxNodes})`;
    if (depth > limits.maxDepth) return `nested deeper than ${limits.maxDepth} at ${path}`;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `non-finite number at ${path}`;
      continue;
    }
    if (typeof v === 'string') {
      chars += v.length;
      if (chars > limits.maxChars) return `message larger than ${limits.maxChars} characters`;
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: depth + 1, path: `${path}[${i}]` });
      continue;
    }
    if (typeof v === 'object') {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return `not a plain object at ${path}`;
      for (const key of Object.keys(v)) {
        if (forbiddenKeys.has(key)) return `forbidden key "${key}" at ${path}`;
        chars += key.length;
        stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1, path: `${path}.${key}` });
      }
      if (chars > limits.maxChars) return `message larger than ${limits.maxChars} characters`;
      continue;
    }
    return `unsupported ${typeof v} at ${path}`;
  }
  return undefined;
}
