// Fuzzy ranking of workspace paths for the composer's `@` picker: the query's characters in order,
// closer together and in the file name ranking higher. Plain code so it is tested without VS Code.

/** Score of `path` for `query` (higher is better); undefined when the characters are not all there in order. */
export function fuzzyScore(query: string, path: string): number | undefined {
  const q = query.toLowerCase();
  if (q === '') return 0;
  const p = path.toLowerCase();
  const nameStart = p.lastIndexOf('/') + 1;
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of q) {
    const next = p.indexOf(ch, at + 1);
    if (next < 0) return undefined;
    run = next === at + 1 ? run + 1 : 0;
    score += 1 + run * 2 + (next >= nameStart ? 2 : 0) + (next === nameStart || p[next - 1] === '/' || p[next - 1] === '.' || p[next - 1] === '-' || p[next - 1] === '_' ? 3 : 0);
    at = next;
  }
  // An exact file name or a name that starts with the query wins over scattered matches.
  const name = p.slice(nameStart);
  if (name === q) score += 50;
  else if (name.startsWith(q)) score += 20;
  return score - path.length / 100;
}

/** The best `limit` paths for `query`, best first (ties: shorter, then alphabetical). */
export function rankPaths(query: string, paths: readonly string[], limit: number): string[] {
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of paths) {
    const score = fuzzyScore(query, path);
    if (score !== undefined) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.path);
}
