// Small text formatters shared by the transcript, the task strip and the status line.

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
