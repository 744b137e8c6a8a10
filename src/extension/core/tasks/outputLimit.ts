// Bounds of a task's in-memory output buffer: an agent may ask for a size, never for more than the setting allows.

/** The range of `vigil.tasks.outputByteLimit` (package.json declares the same minimum and maximum). */
export const OUTPUT_BYTE_LIMIT_MIN = 1024;
export const OUTPUT_BYTE_LIMIT_MAX = 64 * 1024 * 1024;

export interface ClampedLimit {
  limit: number;
  /** Set when the asked value was changed: says what was asked and what is kept, for the log. */
  note?: string;
}

/**
 * The buffer size for a task: the agent's `outputByteLimit` when it is sane and no larger than `fallback`
 * (the setting), else the setting; so `1e12` cannot make the buffer grow with output.
 */
export function clampOutputByteLimit(requested: number | null | undefined, fallback: number): ClampedLimit {
  const bounded = (value: number) => Math.min(OUTPUT_BYTE_LIMIT_MAX, Math.max(OUTPUT_BYTE_LIMIT_MIN, Math.floor(value)));
  const base = Number.isFinite(fallback) && fallback > 0 ? bounded(fallback) : OUTPUT_BYTE_LIMIT_MIN;
  if (requested === null || requested === undefined) return { limit: base };
  if (!Number.isFinite(requested) || requested <= 0) {
    return { limit: base, note: `outputByteLimit ${String(requested)} is not a positive number; using ${base} bytes` };
  }
  // The setting is the person's ceiling: an agent may keep less in memory, never more.
  const limit = Math.min(bounded(requested), base);
  if (limit === requested) return { limit };
  return { limit, note: `outputByteLimit ${String(requested)} is outside ${OUTPUT_BYTE_LIMIT_MIN}–${base} bytes (vigil.tasks.outputByteLimit); using ${limit}` };
}
