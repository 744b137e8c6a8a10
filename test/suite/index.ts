// Runs the extension-host suite inside the real extension host of the workbench (loaded through
// the workbench's `payload` parameter, the same `run()` contract as @vscode/test-electron).

import * as path from 'node:path';
import { readdirSync, statSync } from 'node:fs';
import Mocha from 'mocha';
import { writeCounts } from '../harness/counts';

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.js') ? [full] : [];
  });
}

export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  for (const file of findTests(__dirname)) mocha.addFile(file);
  await new Promise<void>((resolve, reject) => {
    const failedTitles: string[] = [];
    const runner = mocha.run((failures) => {
      writeCounts(process.env.VIGIL_COUNTS_FILE, {
        suite: 'extension host',
        passed: runner.stats?.passes ?? 0,
        failed: runner.stats?.failures ?? 0,
        skipped: runner.stats?.pending ?? 0,
        failures: failedTitles,
      });
      if (failures > 0) reject(new Error(`${failures} extension-host tests failed`));
      else resolve();
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test: Mocha.Runnable) => failedTitles.push(test.fullTitle()));
  });
}
