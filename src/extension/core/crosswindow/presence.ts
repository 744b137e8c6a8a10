// Which windows can show a session to a person right now: each window publishes, every few seconds,
// the session its view shows while the view reports itself visible; a closed tab stops reporting.

import * as os from 'node:os';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { isAlive } from '../common/processTree';
import type { Clock } from '../ports/clock';
import { writeJsonAtomic } from '../store/atomicFile';

const presenceSchema = z.object({
  version: z.literal(1),
  windowId: z.string(),
  pid: z.number().int(),
  host: z.string(),
  at: z.number(),
  showing: z.string().nullable(),
});
export type PresenceRecord = z.infer<typeof presenceSchema>;

/** A record older than this many publish intervals is a window that stopped reporting. */
const STALE_INTERVALS = 3;

export class Presence {
  private readonly dir: string;
  private readonly host = os.hostname();
  private last: string | null | undefined;

  constructor(
    mailboxDir: string,
    private readonly windowId: string,
    private readonly clock: Clock,
    readonly intervalMs = 5_000,
  ) {
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(windowId)) throw new Error(`Invalid window id ${windowId}`);
    this.dir = path.join(mailboxDir, 'windows');
  }

  /** Writes this window's record; cheap to call on every tick (the file is small). */
  async publish(showing: string | undefined): Promise<void> {
    this.last = showing ?? null;
    const record: PresenceRecord = { version: 1, windowId: this.windowId, pid: process.pid, host: this.host, at: this.clock.wallNow(), showing: this.last };
    await writeJsonAtomic(path.join(this.dir, `${this.windowId}.json`), record);
  }

  /** Whether some live window, this one included, shows `sessionId` to a person now. */
  async isShown(sessionId: string): Promise<boolean> {
    return (await this.live()).some((r) => r.showing === sessionId);
  }

  async live(): Promise<PresenceRecord[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch {
      return [];
    }
    const now = this.clock.wallNow();
    const out: PresenceRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json') || name.startsWith('.')) continue;
      try {
        const parsed = presenceSchema.safeParse(JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')));
        if (!parsed.success) continue;
        const r = parsed.data;
        if (now - r.at > STALE_INTERVALS * this.intervalMs) continue;
        if (r.host === this.host && r.pid !== process.pid && !isAlive(r.pid)) continue;
        out.push(r);
      } catch {
        continue;
      }
    }
    return out;
  }

  async remove(): Promise<void> {
    await fs.unlink(path.join(this.dir, `${this.windowId}.json`)).catch(() => undefined);
  }
}
