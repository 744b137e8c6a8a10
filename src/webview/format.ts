// Small text formatters shared by the transcript, the task strip and the status line.

import { cutText } from '../shared/textCut';

/** Pretty JSON for tool inputs and outputs, cut to keep one huge value from flooding the view. */
export function formatJson(value: unknown, limit = 4_000): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? String(value);
  } catch (error) {
    text = `(unprintable: ${error instanceof Error ? error.message : String(error)})`;
  }
  return cutText(text, limit);
}

export function truncate(text: string, limit: number): string {
  return cutText(text, limit);
}
