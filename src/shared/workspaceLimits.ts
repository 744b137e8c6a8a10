// Bounds on listing and searching a workspace, the same whether the host serves them (`_vigil/fs/*`) or the
// built-in agent does it itself under a plain ACP client: one place, so both stay equally safe on a huge tree.

/** Folders listed but never entered: generated or vendored trees that would drown every listing. */
export const skippedDirs: ReadonlySet<string> = new Set(['.git', 'node_modules', '.vscode-test', 'out', 'dist']);
/** A file larger than this is not searched (it is almost never source, and reading it would stall). */
export const maxSearchFileBytes = 1_000_000;
/** Agent-chosen counts are clamped: an agent asking for a billion entries gets these. */
export const maxListEntries = 5_000;
export const maxSearchResults = 1_000;
/** A search stops (truncated) after this many files, so a huge tree cannot keep anyone busy for minutes. */
export const maxSearchFiles = 20_000;
/** What the built-in agent asks for by default. */
export const defaultListEntries = 500;
export const defaultSearchResults = 200;
/** A matching line is shown up to this many characters. */
export const maxMatchLineChars = 300;

/** An agent-chosen count within (0, max]; anything else becomes the max. */
export function clampCount(value: number, max: number): number {
  return Number.isSafeInteger(value) && value > 0 ? Math.min(value, max) : max;
}
