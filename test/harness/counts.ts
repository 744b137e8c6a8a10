// Suite totals handed from a test run to the project's test command through $VIGIL_COUNTS_FILE.

import { writeFileSync } from 'node:fs';

export interface SuiteCounts {
  suite: string;
  passed: number;
  failed: number;
  skipped: number;
  /** Full titles of the failed tests (and hooks), so repeated runs can name flaky tests. */
  failures?: string[];
}

export function writeCounts(file: string | undefined, counts: SuiteCounts): void {
  if (file) writeFileSync(file, JSON.stringify(counts));
}
