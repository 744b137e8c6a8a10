// VIGIL_BENCH_WRAPPER=node|perl runs a task bench with that wrapper (an A/B at the same load); unset,
// the registry's own default (perl where /usr/bin/perl exists).

import type { WrapperKind } from '../../src/extension/core/tasks/wrapperFiles';

export function benchWrapper(): WrapperKind | undefined {
  const choice = process.env.VIGIL_BENCH_WRAPPER;
  if (choice === undefined || choice === '') return undefined;
  if (choice !== 'node' && choice !== 'perl') throw new Error(`VIGIL_BENCH_WRAPPER must be node or perl, not ${JSON.stringify(choice)}`);
  return choice;
}
