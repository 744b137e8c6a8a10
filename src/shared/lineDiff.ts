// A line diff for edit cards and the +/− counts of an edit: common prefix/suffix trimmed, LCS on what is left
// while it is small, a plain "all removed, all added" beyond that (neither the view nor the host may stall on it).

export type DiffLine = { op: ' ' | '-' | '+'; text: string } | { op: '…'; skipped: number };

const lcsCellBudget = 250_000;

export function diffLines(oldText: string, newText: string, context = 3): DiffLine[] {
  return withContext(fullDiff(oldText, newText), context);
}

/** Lines added and removed from `oldText` to `newText` (the counts a change list shows). */
export function countLineChanges(oldText: string, newText: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of fullDiff(oldText, newText)) {
    if (line.op === '+') added++;
    else if (line.op === '-') removed++;
  }
  return { added, removed };
}

function fullDiff(oldText: string, newText: string): { op: ' ' | '-' | '+'; text: string }[] {
  const a = oldText === '' ? [] : oldText.split('\n');
  const b = newText === '' ? [] : newText.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const full: { op: ' ' | '-' | '+'; text: string }[] = [];
  for (let i = 0; i < start; i++) full.push({ op: ' ', text: a[i] });
  // A loop, not a spread: a spread of a million lines overflows the stack.
  for (const line of middle(a.slice(start, endA), b.slice(start, endB))) full.push(line);
  for (let i = endA; i < a.length; i++) full.push({ op: ' ', text: a[i] });
  return full;
}

function middle(a: string[], b: string[]): { op: ' ' | '-' | '+'; text: string }[] {
  if (a.length * b.length > lcsCellBudget) {
    return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  }
  // lengths[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const w = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * w + j] = a[i] === b[j] ? lengths[(i + 1) * w + j + 1] + 1 : Math.max(lengths[(i + 1) * w + j], lengths[i * w + j + 1]);
    }
  }
  const out: { op: ' ' | '-' | '+'; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i++] });
      j++;
    } else if (lengths[(i + 1) * w + j] >= lengths[i * w + j + 1]) {
      out.push({ op: '-', text: a[i++] });
    } else {
      out.push({ op: '+', text: b[j++] });
    }
  }
  while (i < a.length) out.push({ op: '-', text: a[i++] });
  while (j < b.length) out.push({ op: '+', text: b[j++] });
  return out;
}

/** Keeps `context` unchanged lines around each change and folds longer unchanged runs. */
function withContext(lines: { op: ' ' | '-' | '+'; text: string }[], context: number): DiffLine[] {
  const keep = new Uint8Array(lines.length);
  lines.forEach((line, i) => {
    if (line.op === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = 1;
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  lines.forEach((line, i) => {
    if (keep[i]) {
      if (skipped > 0) out.push({ op: '…', skipped });
      skipped = 0;
      out.push(line);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) out.push({ op: '…', skipped });
  return out;
}
