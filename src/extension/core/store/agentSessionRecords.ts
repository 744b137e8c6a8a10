// The durable book of agent-session bindings: one small JSON file per Vigil session under
// `<root>/agent-sessions/`, shared by every window on the storage root. Apart from the session's
// folder on purpose: deleting a session removes that folder, and its binding is still needed to
// delete the agent's session afterwards.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { keepableAgentSessionId, type AgentSessionBinding, type AgentSessionBook } from '../acp/agentSessionBinding';
import { errorMessage } from '../common/errors';
import type { Logger } from '../ports/logger';
import { readJson, storageError, writeJsonAtomic } from './atomicFile';
import { checkSessionId } from './storePaths';

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
