// The `fs/*` and `_vigil/fs*` requests an agent makes of the client: reads, writes, listings and searches, each
// confined to the workspace (a path outside it, or through a symlink leading out, needs the person's approval)
// and each write held to the workspace's trust and the approvals policy, with its diff recorded.

import { type client, RequestError } from '@agentclientprotocol/sdk';
import { fsListParams, fsSearchParams, vigilMethods } from '../../../shared/agentProtocol/vigilMethods';
import { VigilError } from '../common/errors';
import type { AgentEvent } from '../ports/agentHandle';
import type { ActivityDescriber } from './activityDescriber';
import type { ClientOp } from './clientGrants';
import type { EditJournal } from './editJournal';
import { writeWithDiff } from './editWrites';
import type { AskHooks, PermissionGate } from './permissionGate';
import { describeLocation, type Location } from './workspaceBoundary';
import { privateError, type WorkspaceFs } from './workspaceFs';

export interface FsHandlerContext {
  vigilSessionId: string;
  workspace: WorkspaceFs;
  gate: PermissionGate;
  edits: EditJournal | undefined;
  trusted(): boolean;
  denied(message: string): RequestError;
  asRequestError(error: unknown): RequestError;
  emit(acpSessionId: string, make: (d: ActivityDescriber) => AgentEvent): void;
  /** The approval's opening and closing as activity of the prompt running in `acpSessionId`. */
  hooks(acpSessionId: string): AskHooks;
  authorize(acpSessionId: string, op: ClientOp, signal: AbortSignal, rawInput?: unknown): Promise<void>;
  /** The scope of the prompt running in `acpSessionId`: its edits of one file are summed up together (editWrites.ts). */
  turnOf(acpSessionId: string): object;
}

export function fsHandlers(app: ReturnType<typeof client>, ctx: FsHandlerContext): void {
  const { workspace } = ctx;
  app
    .onRequest('fs/read_text_file', async ({ params, signal }) => {
      ctx.emit(params.sessionId, (d) => d.request(`fs: read ${params.path}`));
      const where = await confine(ctx, params.sessionId, params.path, 'read', signal);
      try {
        return { content: await workspace.read(where, params.line, params.limit, signal) };
      } catch (error) {
        throw ctx.asRequestError(error);
      }
    })
    .onRequest('fs/write_text_file', async ({ params, signal }) => {
      const sid = params.sessionId;
      ctx.emit(sid, (d) => d.request(`fs: write ${params.path}`));
      if (!ctx.trusted()) throw ctx.denied('This workspace is not trusted: Vigil lets the agent read but not write files.');
      let approvedOutside = false;
      const where = await confine(ctx, sid, params.path, 'write', signal, () => (approvedOutside = true));
      // A write outside the workspace was just asked about with its path; any other write goes through the policy.
      // Through a symlink inside, the file written is the link's target: that is what an approval must have named,
      // and what the question shows (an approval of `notes.md` does not cover writing what it points to).
      const op: ClientOp = where.hops.length > 0 ? { kind: 'edit', path: where.real, shown: describeLocation(where) } : { kind: 'edit', path: where.abs };
      try {
        await writeWithDiff(workspace, ctx.gate, ctx.edits, {
          sessionId: ctx.vigilSessionId, where, content: params.content, op, turn: ctx.turnOf(sid),
          authorize: async () => (approvedOutside ? undefined : ctx.authorize(sid, op, signal)),
          review: (g, proposal) => g.reviewEdit(ctx.vigilSessionId, op, { type: 'edit', edit: proposal.edit.view, ...(proposal.preview ? { preview: proposal.preview } : {}), review: true }, ctx.hooks(sid), signal, { path: params.path }),
          recorded: (views) => ctx.emit(sid, (d) => d.fileEdited(views.edit, views.file)),
        });
      } catch (error) {
        throw error instanceof VigilError && error.code === 'PERMISSION_DENIED' ? ctx.denied(error.message) : ctx.asRequestError(error);
      }
      return {};
    })
    .onRequest(vigilMethods.fsList, (p: unknown) => fsListParams.parse(p), async ({ params, signal }) => {
      ctx.emit(params.sessionId, (d) => d.request(`fs: list ${params.path}`));
      const where = await confine(ctx, params.sessionId, params.path, 'read', signal);
      return workspace.list(where, params.maxEntries).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
    })
    .onRequest(vigilMethods.fsSearch, (p: unknown) => fsSearchParams.parse(p), async ({ params, signal }) => {
      ctx.emit(params.sessionId, (d) => d.request(`fs: search ${params.query}`));
      const where = await confine(ctx, params.sessionId, params.path ?? workspace.root, 'read', signal);
      return workspace.search(where, params.query, params.maxResults).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
    });
}

/** Paths outside the workspace (or through a symlink leading out or to nothing) need the person's approval, once per request; `approved` says the person was asked and allowed. */
async function confine(ctx: FsHandlerContext, acpSessionId: string, path: string, action: 'read' | 'write', signal: AbortSignal, approved?: () => void): Promise<Location> {
  const where = await ctx.workspace.locate(path).catch((error: unknown) => {
    throw ctx.asRequestError(error);
  });
  if (where.inside) return where;
  if (where.private) throw ctx.denied(privateError(where, action).message);
  // The person sees where the access really lands: the symlink's resolved target, not just the name the agent used.
  const title = `${action} outside the workspace: ${describeLocation(where)}`;
  const hooks = ctx.hooks(acpSessionId);
  const answer = await ctx.gate.ask({ sessionId: ctx.vigilSessionId, title, kind: action === 'read' ? 'read' : 'edit' }, { opened: () => hooks.opened(title), closed: (a) => hooks.closed(title, a) }, signal);
  if (answer !== 'allowOnce' && answer !== 'allowAlways') throw ctx.denied(`Access to ${describeLocation(where)} is outside the workspace folder and was not approved.`);
  approved?.();
  return ctx.workspace.approved(where);
}
