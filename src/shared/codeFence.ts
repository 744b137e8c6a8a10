// A Markdown code block that the text inside cannot close early: its fence is a run of backticks longer than
// any in the text. Used for what the agent is given (attached files, the selection) and for the export.

/** At least three backticks, and one more than the longest run of backticks in `text`. */
export function fenceFor(text: string): string {
  let longest = 2;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(longest + 1);
}

/** `text` between two fences that nothing in it can match. */
export function fencedBlock(text: string): string {
  const fence = fenceFor(text);
  return `${fence}\n${text}\n${fence}`;
}
