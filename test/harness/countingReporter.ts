// A mocha reporter: the usual spec output, plus the totals written to $VIGIL_COUNTS_FILE so that
// the project's test command can print one real `N passed, N failed` line for all suites.

import Mocha from 'mocha';
import { writeCounts } from './counts';

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const stats = runner.stats;
      writeCounts(process.env.VIGIL_COUNTS_FILE, {
        suite: process.env.VIGIL_SUITE_NAME ?? 'mocha',
        passed: stats?.passes ?? 0,
        failed: stats?.failures ?? 0,
        skipped: stats?.pending ?? 0,
      });
    });
  }
}

module.exports = CountingReporter;
