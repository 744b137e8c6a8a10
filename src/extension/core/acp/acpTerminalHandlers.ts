// The `terminal/*` requests an agent makes of the client: commands run through the task registry
// (terminalBridge.ts), each held to the workspace's trust, the approvals policy and the task caps.

import { RequestError, type client } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../ports/agentHandle';
import type { StartSlot } from '../ports/terminalHost';
import { commandLineOf } from '../tasks/shellCommand';
import type { ActivityDescriber } from './activityDescriber';
import type { ClientOp } from './clientGrants';
import type { TerminalBridge } from './terminalBridge';
import { placeDirectory } from './workspaceDir';
import type { WorkspaceFs } from './workspaceFs';

export interface TerminalHandlerContext {
  vigilSessionId: string;
  terminals: TerminalBridge;
  workspace: WorkspaceFs;
  trusted(): boolean;
  denied(message: string): RequestError;
  asRequestError(error: unknown): RequestError;
  emit(acpSessionId: string, make: (d: ActivityDescriber) => AgentEvent): void;
  authorize(acpSessionId: string, op: ClientOp, signal: AbortSignal, rawInput?: unknown): Promise<void>;
}

export function terminalHandlers(app: ReturnType<typeof client>, ctx: TerminalHandlerContext): void {
  app
    .onRequest('terminal/create', async ({ params, signal }) => {
      // The line the shell will run (args quoted), not a plain join: "rm -rf 'x y'" approved must not cover rm of 'x and y'.
      const commandLine = commandLineOf(params.command, params.args);
      const label = commandLine.slice(0, 200);
      const background = (params._meta as { vigil?: { background?: unknown } } | null | undefined)?.vigil?.background === true;
      ctx.emit(params.sessionId, (d) => (background ? d.request(`tool: start background ${label}`) : d.foregroundCommand(`tool: run ${label}`)));
      if (!ctx.trusted()) throw ctx.denied('This workspace is not trusted: Vigil does not let the agent run commands.');
      const place = await placeDirectory(ctx.workspace.root, params.cwd).catch((error: unknown) => {
        throw ctx.asRequestError(error);
      });
      if (place.problem === 'notFolder') throw new RequestError(-32602, `The terminal cwd ${place.path} is not a folder.`);
      const envNames = (params.env ?? []).map((e) => e.name);
      // The raw input shown on request: the environment by its names only (its values may be secrets).
      const rawInput = { command: params.command, args: params.args, cwd: params.cwd, background, env: envNames };
      // Room under the task caps is taken before the person is asked, and held while they answer.
      let slot: StartSlot;
      try {
        slot = ctx.terminals.reserveStart(ctx.vigilSessionId);
      } catch (error) {
        throw ctx.asRequestError(error);
      }
      try {
        await ctx.authorize(params.sessionId, { kind: 'execute', commandLine, cwd: place.path, cwdInside: place.inside, cwdMissing: place.problem === 'missing', background, envNames }, signal, rawInput);
        // The checked real directory, not the agent's spelling of it: a symlink it names cannot be re-pointed in between.
        const created = await ctx.terminals.create(ctx.vigilSessionId, { ...params, cwd: place.path }, () =>
          ctx.emit(params.sessionId, (d) => d.foregroundCommand(`tool: output of ${label}`)),
        slot);
        if (created.background) ctx.emit(params.sessionId, (d) => d.request(`background task ${created.terminalId} started: ${label}`));
        return { terminalId: created.terminalId };
      } catch (error) {
        throw ctx.asRequestError(error);
      } finally {
        slot.release();
      }
    })
    .onRequest('terminal/output', async ({ params }) => {
      ctx.emit(params.sessionId, (d) => d.request(`tool: output of terminal ${params.terminalId}`));
      const out = await ctx.terminals.output(params.terminalId).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
      return { output: out.output, truncated: out.truncated, exitStatus: out.exitStatus ?? undefined };
    })
    .onRequest('terminal/wait_for_exit', async ({ params, signal }) => {
      ctx.emit(params.sessionId, (d) => d.foregroundCommand(`tool: waiting for terminal ${params.terminalId}`));
      const exit = await ctx.terminals.waitForExit(params.terminalId, signal).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
      return { exitCode: exit.exitCode, signal: exit.signal };
    })
    .onRequest('terminal/kill', async ({ params }) => {
      ctx.emit(params.sessionId, (d) => d.request(`tool: kill terminal ${params.terminalId}`));
      await ctx.terminals.kill(params.terminalId).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
      return {};
    })
    .onRequest('terminal/release', async ({ params }) => {
      ctx.emit(params.sessionId, (d) => d.request(`tool: release terminal ${params.terminalId}`));
      await ctx.terminals.release(params.terminalId).catch((e: unknown) => {
        throw ctx.asRequestError(e);
      });
      return {};
    });
}
