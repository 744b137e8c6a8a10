// The files through which windows sharing one storage root see and steer each other's turns:
// the holder's turn board, published approvals and elicitations with their one answer, abort requests and acks.

import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { checkSessionId } from '../store/storePaths';
import { readJson, writeJsonAtomic } from '../store/atomicFile';
import { elicitationAnswerSchema, elicitationFileBytes, elicitationRequestSchema, type ElicitationRequest, type ElicitationStoredAnswer } from './elicitationMail';

/** One flat folder: a single watch sees every change, and names never nest. */
export function mailboxDir(root: string): string {
  return path.join(root, 'crosswindow');
}

const ID = /^[A-Za-z0-9_-]{1,80}$/;
function checkId(id: string, what: string): void {
  if (!ID.test(id)) throw new Error(`Invalid ${what} ${JSON.stringify(id).slice(0, 100)}`);
}

/** What the holder of a turn says about it, for windows that only follow it. Advisory: the lease is the authority. */
export const turnBoardSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  turnId: z.string(),
  windowId: z.string(),
  pid: z.number().int(),
  host: z.string(),
  /** The agent's process (group leader), so a window on this host that takes the turn over can kill it. */
  agentPid: z.number().int().positive().optional(),
  /** When that process started (processStartTime): a pid that went to another process since is never killed. */
  agentStart: z.string().max(200).optional(),
  source: z.enum(['user', 'wakeup', 'resume']),
  startedAt: z.number(),
  phase: z.enum(['running', 'awaitingApproval', 'stalled', 'aborting']),
  waitingOn: z.string().max(500),
  lastActivityAt: z.number(),
  updatedAt: z.number(),
});
export type TurnBoard = z.infer<typeof turnBoardSchema>;

export const approvalRequestSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  requestId: z.string(),
  turnId: z.string(),
  windowId: z.string(),
  title: z.string().max(2_000),
  kind: z.string().max(40),
  at: z.number(),
  /** Wall ms after which the holder answers `reject` on its own. */
  deadlineAt: z.number(),
});
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;

export const approvalAnswerSchema = z.object({
  version: z.literal(1),
  /** `cancelled`: the holder withdrew the question (its turn ended); a later answer loses to it. */
  answer: z.enum(['allowOnce', 'allowAlways', 'reject', 'cancelled']),
  /** The window that answered (or the holder, for its own prompt and the timeout). */
  by: z.string(),
  at: z.number(),
  /** Why, when nobody chose it (e.g. the approval timed out). */
  reason: z.string().max(500).optional(),
});
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>;

export const abortRequestSchema = z.object({ version: z.literal(1), by: z.string(), at: z.number(), reason: z.string().max(500) });
export type AbortRequest = z.infer<typeof abortRequestSchema>;
export const abortAckSchema = z.object({ version: z.literal(1), by: z.string(), at: z.number(), aborted: z.boolean() });
export type AbortAck = z.infer<typeof abortAckSchema>;

export type ClaimResult<T> = { won: true; value: T } | { won: false; value: T | undefined };

export class Mailbox {
  readonly dir: string;

  constructor(root: string) {
    this.dir = mailboxDir(root);
  }

  async ensure(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
  }

  boardFile(sessionId: string): string {
    checkSessionId(sessionId);
    return path.join(this.dir, `${sessionId}.turn.json`);
  }

  requestFile(sessionId: string, requestId: string): string {
    return this.fileOf(sessionId, requestId, 'request id', 'approval');
  }

  answerFile(sessionId: string, requestId: string): string {
    return this.fileOf(sessionId, requestId, 'request id', 'answer');
  }

  elicitationFile(sessionId: string, requestId: string): string {
    return this.fileOf(sessionId, requestId, 'request id', 'elicitation');
  }

  elicitationAnswerFile(sessionId: string, requestId: string): string {
    return this.fileOf(sessionId, requestId, 'request id', 'elicitation-answer');
  }

  abortFile(sessionId: string, turnId: string): string {
    return this.fileOf(sessionId, turnId, 'turn id', 'abort');
  }

  ackFile(sessionId: string, turnId: string): string {
    return this.fileOf(sessionId, turnId, 'turn id', 'abortack');
  }

  /** `<session>.<id>.<suffix>.json`, both names checked first: they become file names. */
  private fileOf(sessionId: string, id: string, label: string, suffix: string): string {
    checkSessionId(sessionId);
    checkId(id, label);
    return path.join(this.dir, `${sessionId}.${id}.${suffix}.json`);
  }

  // ---- turn board ----

  async writeBoard(board: TurnBoard): Promise<void> {
    await this.ensure();
    await writeJsonAtomic(this.boardFile(board.sessionId), board);
  }

  readBoard(sessionId: string): Promise<TurnBoard | undefined> {
    return readValid(this.boardFile(sessionId), turnBoardSchema);
  }

  /** Every turn board on disk. */
  async listBoards(): Promise<TurnBoard[]> {
    const out: TurnBoard[] = [];
    for (const name of await this.names()) {
      const m = /^([A-Za-z0-9_-]{1,80})\.turn\.json$/.exec(name);
      if (!m) continue;
      const board = await this.readBoard(m[1]);
      if (board?.sessionId === m[1]) out.push(board);
    }
    return out;
  }

  /** Removes the board only if it still describes `turnId` (a newer turn's board stays). */
  async clearBoard(sessionId: string, turnId: string): Promise<void> {
    const board = await this.readBoard(sessionId);
    if (board?.turnId === turnId) await remove(this.boardFile(sessionId));
  }

  // ---- approvals ----

  async publishApproval(request: ApprovalRequest): Promise<void> {
    await this.ensure();
    await writeJsonAtomic(this.requestFile(request.sessionId, request.requestId), request);
  }

  /** The answer file stays (a late answerer must still lose to it); `sweepAnswers` removes it later. */
  async withdrawApproval(sessionId: string, requestId: string): Promise<void> {
    await remove(this.requestFile(sessionId, requestId));
  }

  /** Removes the answers (to approvals and elicitations) of a session whose questions are gone (run when its turn ended). */
  async sweepAnswers(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    const names = await this.names();
    for (const name of names) {
      const m = /^([A-Za-z0-9_-]{1,80})\.([A-Za-z0-9_-]{1,80})\.(answer|elicitation-answer)\.json$/.exec(name);
      const question = m?.[3] === 'answer' ? 'approval' : 'elicitation';
      if (!m || m[1] !== sessionId || names.includes(`${m[1]}.${m[2]}.${question}.json`)) continue;
      await remove(path.join(this.dir, name));
    }
  }

  /** Every published approval request, optionally of one session; unreadable files are skipped. */
  async listApprovals(sessionId?: string): Promise<ApprovalRequest[]> {
    const out: ApprovalRequest[] = [];
    for (const name of await this.names()) {
      if (!name.endsWith('.approval.json')) continue;
      if (sessionId !== undefined && !name.startsWith(`${sessionId}.`)) continue;
      const request = await readValid(path.join(this.dir, name), approvalRequestSchema);
      if (request && path.basename(this.requestFile(request.sessionId, request.requestId)) === name) out.push(request);
    }
    return out;
  }

  /**
   * The one answer to a request: a complete file is linked into place, and `link` fails if the name
   * exists, so exactly one answerer wins across processes; the others read the winner's answer.
   */
  async claimAnswer(sessionId: string, requestId: string, answer: ApprovalAnswer): Promise<ClaimResult<ApprovalAnswer>> {
    const file = this.answerFile(sessionId, requestId);
    if (await claim(file, answer)) return { won: true, value: answer };
    return { won: false, value: await this.readAnswer(sessionId, requestId) };
  }

  readAnswer(sessionId: string, requestId: string): Promise<ApprovalAnswer | undefined> {
    return readValid(this.answerFile(sessionId, requestId), approvalAnswerSchema);
  }

  // ---- elicitations (an agent's forms and links), answered like approvals ----

  /** Refused when larger than other windows read (the holder then publishes it without its schema). */
  async publishElicitation(request: ElicitationRequest): Promise<void> {
    await this.ensure();
    const text = JSON.stringify(request);
    if (Buffer.byteLength(text) > elicitationFileBytes) throw new Error(`the elicitation is larger than ${elicitationFileBytes} bytes`);
    await writeJsonAtomic(this.elicitationFile(request.sessionId, request.requestId), request);
  }

  async withdrawElicitation(sessionId: string, requestId: string): Promise<void> {
    await remove(this.elicitationFile(sessionId, requestId));
  }

  /** Every published elicitation, optionally of one session; unreadable files are skipped. */
  async listElicitations(sessionId?: string): Promise<ElicitationRequest[]> {
    const out: ElicitationRequest[] = [];
    for (const name of await this.names()) {
      if (!name.endsWith('.elicitation.json')) continue;
      if (sessionId !== undefined && !name.startsWith(`${sessionId}.`)) continue;
      const request = await readValid(path.join(this.dir, name), elicitationRequestSchema, elicitationFileBytes);
      if (request && path.basename(this.elicitationFile(request.sessionId, request.requestId)) === name) out.push(request);
    }
    return out;
  }

  /** The one answer to an elicitation (see `claimAnswer`); an answer larger than the holder reads is refused unwritten. */
  async claimElicitationAnswer(sessionId: string, requestId: string, answer: ElicitationStoredAnswer): Promise<ClaimResult<ElicitationStoredAnswer>> {
    const file = this.elicitationAnswerFile(sessionId, requestId);
    if (Buffer.byteLength(JSON.stringify(answer)) > elicitationFileBytes) {
      throw new Error(`The answer is larger than ${Math.round(elicitationFileBytes / 1024 / 1024)} MB, more than Vigil passes to the window that runs the turn. Shorten it.`);
    }
    if (await claim(file, answer)) return { won: true, value: answer };
    return { won: false, value: await this.readElicitationAnswer(sessionId, requestId) };
  }

  readElicitationAnswer(sessionId: string, requestId: string): Promise<ElicitationStoredAnswer | undefined> {
    return readValid(this.elicitationAnswerFile(sessionId, requestId), elicitationAnswerSchema, elicitationFileBytes);
  }

  // ---- aborts ----

  /** Idempotent: a second request for the same turn keeps the first. */
  async requestAbort(sessionId: string, turnId: string, request: AbortRequest): Promise<void> {
    await this.ensure();
    await claim(this.abortFile(sessionId, turnId), request);
  }

  readAbort(sessionId: string, turnId: string): Promise<AbortRequest | undefined> {
    return readValid(this.abortFile(sessionId, turnId), abortRequestSchema);
  }

  async ackAbort(sessionId: string, turnId: string, ack: AbortAck): Promise<void> {
    await claim(this.ackFile(sessionId, turnId), ack);
  }

  readAck(sessionId: string, turnId: string): Promise<AbortAck | undefined> {
    return readValid(this.ackFile(sessionId, turnId), abortAckSchema);
  }

  /** Abort requests on disk as (session, turn) pairs. */
  async listAborts(): Promise<Array<{ sessionId: string; turnId: string }>> {
    const out: Array<{ sessionId: string; turnId: string }> = [];
    for (const name of await this.names()) {
      const m = /^([A-Za-z0-9_-]{1,80})\.([A-Za-z0-9_-]{1,80})\.abort\.json$/.exec(name);
      if (m) out.push({ sessionId: m[1], turnId: m[2] });
    }
    return out;
  }

  async clearAbort(sessionId: string, turnId: string): Promise<void> {
    await remove(this.abortFile(sessionId, turnId));
    await remove(this.ackFile(sessionId, turnId));
  }

  private async names(): Promise<string[]> {
    try {
      return await fs.readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}

/** Creates `file` whole or not at all; false when it already exists. */
async function claim(file: string, value: unknown): Promise<boolean> {
  const temp = `${file}.${randomUUID()}.tmp`;
  await fs.writeFile(temp, JSON.stringify(value), { flag: 'wx' });
  try {
    await fs.link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

async function remove(file: string): Promise<void> {
  await fs.unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** A file another process wrote is data to check: unreadable, corrupt or wrongly shaped reads as absent. */
async function readValid<T>(file: string, schema: z.ZodType<T>, maxBytes = 64 * 1024): Promise<T | undefined> {
  try {
    const stat = await fs.stat(file);
    if (stat.size > maxBytes) return undefined;
    const parsed = schema.safeParse(await readJson<unknown>(file));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
