// The `@` mentions of the composer: what it offers (files, the selection, problems, and whether the agent
// takes images), and a prompt's mentions as checked attachments, refused with why when the agent cannot take them.

import type { MentionItem, PromptAttachment, PromptMention } from '../../shared/promptContext';
import type { AcpAgentHandle } from '../core/acp/acpAgentHandle';
import { resolveMentions } from '../core/acp/mentionResolver';
import { refusalFor } from '../core/acp/promptContent';
import type { AgentHandleProvider } from '../core/ports/agentHandle';

/** The sessions' agents, asked what a prompt may hold. */
type MentionAgents = Pick<AgentHandleProvider, 'get'>;

export interface MentionDeps {
  services(): Promise<{ agents: MentionAgents }>;
  /** What `@` offers in the composer, and the same mentions of files named by URI and of the active file's Problems (vscode/mentionSource.ts). */
  mentions: {
    query(root: string | undefined, query: string): Promise<{ items: MentionItem[]; note?: string }>;
    uris(root: string | undefined, uris: readonly string[]): Promise<{ items: MentionItem[]; note?: string }>;
    activeProblems(root: string | undefined): { items: MentionItem[]; note?: string };
  };
  /** The folder a session's agent works in (its workspace folder), for mentions of files. */
  workFolder(sessionId: string): Promise<string | undefined>;
  /** The folder a new session belongs to (active editor's folder, else the first); none without folders. */
  folderForNewSession(): string | undefined;
  /** Extra facts about the session for its header; its agent's name, for a refusal. */
  metaExtra(sessionId: string): { agent?: string; model?: string; cwd?: string; wakeups?: string; restricted?: { text: string; detail: string }; builtin?: boolean };
}

/** The mentions as checked attachments, refused (with why) when the session's agent cannot take them. */
export async function promptAttachments(d: MentionDeps, services: { agents: MentionAgents }, sessionId: string, mentions: PromptMention[]): Promise<PromptAttachment[]> {
  const root = await d.workFolder(sessionId);
  if (root === undefined && mentions.some((m) => m.kind === 'file')) throw new Error('Open the session\'s folder to mention its files.');
  const attachments = await resolveMentions(root ?? '/', mentions);
  if (attachments.some((a) => a.kind === 'image')) {
    const handle = (await services.agents.get(sessionId)) as Partial<AcpAgentHandle>;
    const caps = handle.promptCapabilities ? await handle.promptCapabilities() : undefined;
    const refusal = refusalFor(attachments, caps, d.metaExtra(sessionId).agent ?? 'This agent');
    if (refusal) throw new Error(refusal);
  }
  return attachments;
}

/** What `@` offers for `query` in the session (or, without one, in the folder a new session gets). */
export async function mentionChoices(d: MentionDeps, sessionId: string | undefined, query: string): Promise<{ items: MentionItem[]; images?: boolean; note?: string }> {
  const services = await d.services();
  const root = await mentionRoot(d, sessionId);
  const found = await d.mentions.query(root, query);
  const handle = sessionId ? ((await services.agents.get(sessionId).catch(() => undefined)) as Partial<AcpAgentHandle> | undefined) : undefined;
  const caps = handle?.knownPromptCapabilities;
  return { ...found, ...(caps ? { images: caps.image === true } : {}) };
}

/** The folder a session's mentions are taken from (without a session: the folder a new one gets). */
export async function mentionRoot(d: Pick<MentionDeps, 'workFolder' | 'folderForNewSession'>, sessionId: string | undefined): Promise<string | undefined> {
  return sessionId ? d.workFolder(sessionId) : d.folderForNewSession();
}

/** Files dropped on the composer or added by command: the mentions `@` would make of them, and why others were refused. */
export async function droppedMentions(d: MentionDeps, sessionId: string | undefined, uris: readonly string[]): Promise<{ items: MentionItem[]; note?: string }> {
  return d.mentions.uris(await mentionRoot(d, sessionId), uris);
}

/** The Problems of the active editor's file, as a mention (or why there is none). */
export async function activeProblemMentions(d: MentionDeps, sessionId: string | undefined): Promise<{ items: MentionItem[]; note?: string }> {
  return d.mentions.activeProblems(await mentionRoot(d, sessionId));
}
