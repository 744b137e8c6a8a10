// What the diff editor shows for a side of a checkpoint diff: the text, or a line saying why there is none.

import type { StoredText } from '../core/checkpoints/storedText';

export function storedTextShown(got: StoredText): string {
  if (got.kind === 'text') return got.text;
  const size = formatSize(got.bytes);
  return got.kind === 'binary' ? `(binary file, ${size}: no diff is shown)` : `(${size}: too large to compare here)`;
}

function formatSize(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.ceil(n / 1024)} KB`;
  return `${n} bytes`;
}
