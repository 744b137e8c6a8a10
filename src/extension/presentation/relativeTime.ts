// "just now", "5 min ago", "yesterday": last-activity text for the session list; pure, unit-tested.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A short relative time; clocks that disagree (a timestamp in the future) read as "just now", never "in 3 s". */
export function formatRelativeTime(then: number, now: number): string {
  const ago = now - then;
  if (!Number.isFinite(ago) || ago < 45_000) return 'just now';
  if (ago < HOUR) return `${Math.max(1, Math.round(ago / MINUTE))} min ago`;
  if (ago < DAY) {
    const hours = Math.floor(ago / HOUR);
    return hours === 1 ? '1 hour ago' : `${hours} hours ago`;
  }
  const days = Math.floor(ago / DAY);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  if (days < 30) {
    const weeks = Math.floor(days / 7);
    return weeks === 1 ? '1 week ago' : `${weeks} weeks ago`;
  }
  return new Date(then).toISOString().slice(0, 10);
}
