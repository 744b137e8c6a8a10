// Small text formatters shared by the transcript, the task strip and the status line.

/** 42 → "42s", 312 → "5:12", 4000 → "1:06:40". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  if (total < 60) return `${total}s`;
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Pretty JSON for tool inputs and outputs, cut to keep one huge value from flooding the view. */
export function formatJson(value: unknown, limit = 4_000): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? String(value);
  } catch (error) {
    text = `(unprintable: ${error instanceof Error ? error.message : String(error)})`;
  }
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

export function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}
