// A mocha reporter: the usual spec output, plus the totals and the failed tests' full titles written to
// $VIGIL_COUNTS_FILE, so the project's test command prints one real `N passed, N failed` line and the
// stress run can name each flaky test.

import Mocha from 'mocha';
import { writeCounts } from './counts';

class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const failures: string[] = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test: Mocha.Runnable) => failures.push(test.fullTitle()));
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const stats = runner.stats;
      writeCounts(process.env.VIGIL_COUNTS_FILE, {
        suite: process.env.VIGIL_SUITE_NAME ?? 'mocha',
        passed: stats?.passes ?? 0,
        failed: stats?.failures ?? 0,
        skipped: stats?.pending ?? 0,
        failures,
      });
    });
  }
}

module.exports = CountingReporter;
