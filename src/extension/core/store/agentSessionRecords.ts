// The durable book of agent-session bindings: one small JSON file per Vigil session under
// `<root>/agent-sessions/`, shared by every window on the storage root. Apart from the session's
// folder on purpose: deleting a session removes that folder, and its binding is still needed to
// delete the agent's session afterwards.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import { readJson, storageError, writeJsonAtomic } from './atomicFile';
import { checkSessionId } from './storePaths';

/** Which agent session a Vigil session continues in (acp/agentSessionBinding.ts makes and reads them). */
export interface AgentSessionBinding {
  /** `launchIdentity` of the agent that owns the id: another agent is never asked to resume it. */
  launch: string;
  agentSessionId: string;
  /** The folder the session was opened in (its agent runs there again to delete it). */
  cwd: string;
  /**
   * Who opened the agent's session last (random per open). A live process that finds another
   * opener here holds a stale copy (another window or process continued the session) and restarts.
   */
  opener: string;
  /** What the agent advertised at that open; `delete` decides whether deleting needs its process. */
  supports: { resume: boolean; load: boolean; close: boolean; delete: boolean };
  at: number;
}

/** Where bindings are kept: durably beside the sessions, or in memory when no store is given. */
export interface AgentSessionBook {
  read(vigilSessionId: string): Promise<AgentSessionBinding | undefined>;
  write(vigilSessionId: string, binding: AgentSessionBinding): Promise<void>;
  remove(vigilSessionId: string): Promise<void>;
}

/** An agent session id Vigil keeps: ids are short tokens in every agent seen; anything else is not stored. */
export const maxAgentSessionIdLength = 512;
export function keepableAgentSessionId(id: string): boolean {
  return id.length > 0 && id.length <= maxAgentSessionIdLength && ![...id].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

const recordSchema = z.object({
  v: z.literal(1),
  launch: z.string().regex(/^(builtin|[0-9a-f]{64})$/),
  agentSessionId: z.string().refine(keepableAgentSessionId),
  cwd: z.string().max(4096),
  opener: z.string().max(100),
  supports: z.object({ resume: z.boolean(), load: z.boolean(), close: z.boolean(), delete: z.boolean() }),
  at: z.number(),
});

export const agentSessionsDir = (root: string) => path.join(root, 'agent-sessions');

export class AgentSessionRecords implements AgentSessionBook {
  constructor(
    private readonly root: string,
    private readonly logger: Logger,
  ) {}

  /** The binding, or undefined when there is none or it is damaged (logged: the agent then starts a new session). */
  async read(vigilSessionId: string): Promise<AgentSessionBinding | undefined> {
    const file = this.file(vigilSessionId);
    let value: unknown;
    try {
      value = await readJson<unknown>(file);
    } catch (error) {
      this.logger.warn(`the agent session record ${file} is unreadable (${errorMessage(error)}); the agent starts a new session`);
      return undefined;
    }
    if (value === undefined) return undefined;
    const parsed = recordSchema.safeParse(value);
    if (!parsed.success) {
      this.logger.warn(`the agent session record ${file} is not valid; the agent starts a new session`);
      return undefined;
    }
    const { v: _v, ...binding } = parsed.data;
    return binding;
  }

  async write(vigilSessionId: string, binding: AgentSessionBinding): Promise<void> {
    await writeJsonAtomic(this.file(vigilSessionId), { v: 1, ...binding });
  }

  async remove(vigilSessionId: string): Promise<void> {
    const file = this.file(vigilSessionId);
    try {
      await fs.rm(file, { force: true });
    } catch (error) {
      throw storageError(file, error);
    }
  }

  private file(vigilSessionId: string): string {
    checkSessionId(vigilSessionId);
    return path.join(agentSessionsDir(this.root), `${vigilSessionId}.json`);
  }
}
