// How every surface cuts a long text: its first `limit` characters, then a line that says how many more there
// were and, when it matters, where they went ("cut", "not shown", "not exported").

/** `text` unchanged when it fits in `limit` characters; else its head and "… (N more characters[ what])". */
export function cutText(text: string, limit: number, what?: string): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n… (${text.length - limit} more characters${what ? ` ${what}` : ''})`;
}
