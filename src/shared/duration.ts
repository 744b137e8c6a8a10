// How long something took or has been running, in the one wording every surface uses (session view clocks,
// task quick picks, terminal mirrors); pure, unit-tested.

/** "42 s", "3 min 05 s", "2 h 10 min": an elapsed time; negative reads as 0 s. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min ${String(total % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
