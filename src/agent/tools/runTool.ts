// Runs one tool call through the client: validates arguments, asks permission, and turns failures into clear tool errors.

import { isAbsolute, resolve } from 'node:path';
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import { vigilMethods, type FsListResult, type FsSearchResult } from '../../shared/agentProtocol/vigilMethods';
import { log } from '../log';
import { clientFeatures } from '../../shared/vigilExtensions';
import { defaultListEntries, defaultSearchResults } from '../../shared/workspaceLimits';
import { timeoutSignal } from '../../shared/untilAborted';
import { listLocal, searchLocal } from './localWorkspace';
import { ensurePermission } from './permission';
import { ToolError, type ToolContext, type ToolResult } from './toolContext';
import { isToolName, toolArgs, toolKinds, type ToolName } from './toolSpecs';
import { cutText } from '../../shared/textCut';

const maxToolText = 30_000;

export async function runTool(ctx: ToolContext, name: string, rawArguments: string, toolCall: ToolCallUpdate): Promise<ToolResult> {
  if (!isToolName(name)) {
    return { ok: false, text: `Unknown tool "${name}". Available tools: ${Object.keys(toolArgs).join(', ')}.` };
  }
  let json: unknown;
  try {
    json = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch (error) {
    return { ok: false, text: `Invalid arguments for ${name}: not valid JSON (${(error as Error).message}). Send a JSON object.` };
  }
  const parsed = toolArgs[name].safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    return { ok: false, text: `Invalid arguments for ${name}: ${issues}.` };
  }
  try {
    const kind = toolKinds[name];
    if (kind === 'edit' || kind === 'execute') await ensurePermission(ctx, kind, toolCall);
    return await execute(ctx, name, parsed.data);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, text: error instanceof ToolError ? message : `${name} failed: ${message}` };
  }
}

async function execute(ctx: ToolContext, name: ToolName, args: unknown): Promise<ToolResult> {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(ctx.cwd, p));
  switch (name) {
    case 'read_file': {
      const a = args as { path: string; line?: number; limit?: number };
      return { ok: true, text: clip(await ctx.client.readTextFile(abs(a.path), ctx.signal, { line: a.line, limit: a.limit })) };
    }
    case 'write_file': {
      const a = args as { path: string; content: string };
      await ctx.client.writeTextFile(abs(a.path), a.content, ctx.signal);
      return { ok: true, text: `Wrote ${a.content.length} characters to ${a.path}.` };
    }
    case 'edit_file': {
      const a = args as { path: string; old_text: string; new_text: string };
      const before = await ctx.client.readTextFile(abs(a.path), ctx.signal);
      const first = before.indexOf(a.old_text);
      if (first < 0) throw new ToolError(`edit_file: old text not found in ${a.path}. Read the file again and copy the exact text to replace.`);
      if (before.indexOf(a.old_text, first + 1) >= 0) throw new ToolError(`edit_file: old text occurs more than once in ${a.path}; include more surrounding lines so it is unique.`);
      const after = before.slice(0, first) + a.new_text + before.slice(first + a.old_text.length);
      await ctx.client.writeTextFile(abs(a.path), after, ctx.signal);
      return { ok: true, text: `Edited ${a.path}: replaced ${a.old_text.length} characters with ${a.new_text.length}.` };
    }
    case 'list_files': {
      const a = args as { path: string };
      // Vigil's host lists (and asks about paths outside); a plain ACP client does not serve `_vigil/fs/list`.
      const r = ctx.hostServes(vigilMethods.fsList)
        ? await ctx.client.hostRequest<FsListResult>(vigilMethods.fsList, { sessionId: ctx.sessionId, path: abs(a.path), maxEntries: defaultListEntries }, ctx.signal)
        : await listLocal(ctx.cwd, abs(a.path), defaultListEntries);
      return { ok: true, text: r.entries.join('\n') + (r.truncated ? '\n(list truncated)' : '') || '(empty folder)' };
    }
    case 'search_text': {
      const a = args as { query: string; path?: string };
      const where = a.path ? abs(a.path) : ctx.cwd;
      const r = ctx.hostServes(vigilMethods.fsSearch)
        ? await ctx.client.hostRequest<FsSearchResult>(vigilMethods.fsSearch, { sessionId: ctx.sessionId, query: a.query, path: where, maxResults: defaultSearchResults }, ctx.signal)
        : await searchLocal(ctx.cwd, a.query, where, defaultSearchResults);
      if (r.matches.length === 0) return { ok: true, text: `No matches for "${a.query}".` };
      return { ok: true, text: clip(r.matches.map((m) => `${m.path}:${m.line}: ${m.text}`).join('\n') + (r.truncated ? '\n(results truncated)' : '')) };
    }
    case 'run_command':
      return runCommand(ctx, args as { command: string; background?: boolean; notify_pattern?: string; timeout_seconds?: number });
    case 'update_plan': {
      const a = args as { entries: Array<{ content: string; status: 'pending' | 'in_progress' | 'completed' }> };
      await ctx.publishPlan(a.entries);
      return { ok: true, text: 'Plan updated.' };
    }
  }
}

async function runCommand(ctx: ToolContext, requested: { command: string; background?: boolean; notify_pattern?: string; timeout_seconds?: number }): Promise<ToolResult> {
  // Only Vigil's client keeps a command after the turn and wakes us: elsewhere a "background" command would be
  // orphaned with no result ever coming, so it runs in the foreground instead, and the model is told.
  const foregroundOnly = requested.background === true && !ctx.hostServes(clientFeatures.backgroundTerminals);
  const a = foregroundOnly ? { ...requested, background: false } : requested;
  const note = foregroundOnly ? '(This ACP client has no background tasks, so the command ran in the foreground.)\n' : '';
  // A command without args is a command line: Vigil's registry runs it through the person's shell.
  const terminal = await ctx.client.createTerminal({ command: a.command, cwd: ctx.cwd, background: a.background, notifyPattern: a.notify_pattern }, ctx.signal);
  if (a.background) {
    // Not released: releasing would kill it. The host's registry owns it now and wakes us on completion.
    return {
      ok: true,
      terminalId: terminal.id,
      text: `Started background task ${terminal.id}. You will be woken with its result when it ${a.notify_pattern ? `prints a line matching /${a.notify_pattern}/ or exits` : 'exits'}. End your turn now and say you will continue then.`,
    };
  }
  const timeoutMs = a.timeout_seconds ? a.timeout_seconds * 1000 : ctx.commandTimeoutMs;
  // The command's own bound or the turn's cancel, whichever comes first, kills it.
  const timeout = timeoutSignal(timeoutMs);
  const stop = AbortSignal.any([ctx.signal, timeout]);
  let timedOut = false;
  const onStop = () => {
    timedOut = timeout.aborted;
    terminal.kill().catch((error: unknown) => log(timedOut ? 'warn' : 'debug', `killing ${timedOut ? 'timed-out' : 'cancelled'} terminal ${terminal.id}: ${String(error)}`));
  };
  stop.addEventListener('abort', onStop, { once: true });
  try {
    const exit = await terminal.waitForExit();
    const out = await terminal.currentOutput();
    const status = timedOut ? `killed after the ${Math.round(timeoutMs / 1000)} s timeout` : exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode ?? 'unknown'}`;
    return {
      ok: !timedOut && exit.exitCode === 0,
      terminalId: terminal.id,
      text: clip(`${note}(${status})\n${out.truncated ? '(output truncated at the start)\n' : ''}${out.output}`),
    };
  } finally {
    stop.removeEventListener('abort', onStop);
    terminal.release().catch((error: unknown) => log('debug', `releasing terminal ${terminal.id}: ${String(error)}`));
  }
}

function clip(text: string): string {
  return cutText(text, maxToolText, 'cut');
}
