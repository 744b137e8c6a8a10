// Mocha root hooks for the UI suite: whatever a test file left open is closed once the suite ends.

import { closeLeftoverSessions } from './e2eSession';

export const mochaHooks = {
  async afterAll(this: Mocha.Context): Promise<void> {
    this.timeout(120_000);
    const closed = await closeLeftoverSessions();
    if (closed > 0) console.warn(`closed ${closed} workbench(es) a test file left open`);
  },
};
