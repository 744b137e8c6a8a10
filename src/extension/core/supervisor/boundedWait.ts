// Waits of a turn's end that must not hold it: bounded on the injected clock.

import type { CheckpointFields, TurnCheckpoint } from '../ports/checkpoints';
import type { Clock } from '../ports/clock';

/** True if `work` settled within `ms` of the injected clock. */
export function within(clock: Clock, work: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = clock.setTimer(ms, () => resolve(false));
    void work.finally(() => {
      timer.cancel();
      resolve(true);
    });
  });
}

/** Bounded: a checkpoint that never answers does not hold the turn's end (its own bound is shorter). */
export async function checkpointFields(clock: Clock, checkpoint: TurnCheckpoint, boundMs: number): Promise<CheckpointFields> {
  let fields: CheckpointFields = { unavailable: 'No checkpoint: taking it did not finish in time.' };
  await within(clock, checkpoint.finish().then((got) => void (fields = got)), boundMs);
  return fields;
}
