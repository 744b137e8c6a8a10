// Why an agent could not serve a turn, in words a person can act on: it exited (code, signal, the
// last lines of its stderr), its command is missing, or it wants a sign-in. Carries the remedies the UI offers.

import type { NoticeAction } from '../../../shared/sessionView';
import type { AgentFailure } from '../ports/agentHandle';
import { RELAY_LOST, type AgentExit } from './agentProcess';

/** At most this much of the agent's stderr goes into a notice (the whole of it is in the log). */
export const stderrTailChars = 1_200;
const stderrTailShownLines = 8;

/** An Error whose `cause` is the supervisor's AgentFailure (ports/agentHandle.ts), remedies included. */
export function agentFailure(code: AgentFailure['code'], message: string, remedies?: NoticeAction[], original?: unknown): Error {
  const cause: AgentFailure = { code, message, ...(remedies && remedies.length > 0 ? { remedies } : {}) };
  const error = new Error(message, { cause });
  if (original !== undefined) (error as Error & { original?: unknown }).original = original;
  return error;
}

/** Stack frames (Rust `RUST_BACKTRACE`, Node, Python): they bury the one line that says what went wrong. */
const stackFrame = /^\s*(?:stack backtrace:|traceback \(most recent call last\):|\d+:\s|at\s|file "[^"]*", line \d+)/i;

/** The last lines of stderr without stack frames, bounded in lines and characters (the end is what explains an exit). */
export function boundedTail(stderr: string): string {
  const all = stderr.split('\n').filter((l) => l.trim());
  const withoutFrames = all.filter((l) => !stackFrame.test(l));
  const lines = (withoutFrames.length > 0 ? withoutFrames : all).slice(-stderrTailShownLines);
  const joined = lines.join('\n');
  return joined.length > stderrTailChars ? `…${joined.slice(-stderrTailChars)}` : joined;
}

/**
 * A launcher (npx, a shell wrapper, a Node shim) that cannot find or run the real binary says so on
 * stderr and exits; the fix is then the same as for a missing command.
 */
const missingBinary = /(?:command not found|:\s*not found\b|no such file or directory|cannot find (?:module|binary|executable|the)|could not (?:find|locate)|not found in PATH|is not recognized as an internal|ENOENT|EACCES|permission denied|exec format error)/i;

export function looksLikeMissingCommand(stderr: string): boolean {
  return missingBinary.test(stderr);
}

function exitWords(exit: AgentExit): string {
  if (exit.signal) return `signal ${exit.signal}`;
  return `code ${exit.code ?? 'unknown'}`;
}

/**
 * "The agent exited (code N)" with when it happened, its last stderr lines and what to do. `phase`
 * says which step it died in; `setting` names where its command is configured.
 */
export function exitFailure(o: { label: string; exit: AgentExit; stderr: string; phase: 'start' | 'turn'; setting: string; builtin: boolean }): Error {
  const tail = boundedTail(o.stderr);
  // 127 and 126 are the shells' "not found" and "cannot execute".
  const missing = !o.builtin && (o.exit.code === 127 || o.exit.code === 126 || looksLikeMissingCommand(tail));
  const when = o.phase === 'start' ? 'while starting' : 'during the turn';
  const parts = [
    o.exit.signal === RELAY_LOST ? `The agent stopped ${when}: the relay Vigil ran it behind ended (it was killed, or it crashed).` : `The agent exited (${exitWords(o.exit)}) ${when}.`,
  ];
  if (tail) parts.push(`Its last output:\n${tail}`);
  else parts.push('It wrote nothing to stderr.');
  if (missing) parts.push(`Check the agent command in the ${o.setting} setting.`);
  else if (o.phase === 'turn') parts.push('It starts again with your next message; Open Log shows everything it wrote.');
  else parts.push('Open Log shows everything it wrote.');
  return agentFailure(o.phase === 'turn' ? 'AGENT_CRASHED' : 'AGENT_FAILED', parts.join('\n'), missing ? ['openSettings', 'openLog'] : ['openLog']);
}

/** The agent needs a sign-in: what it said, the methods it offers, and the Sign in… remedy. */
export function authFailure(o: { label: string; agentMessage: string; methods: readonly { name: string }[] }): Error {
  const said = o.agentMessage.replace(/\s+/g, ' ').trim().slice(0, 300);
  const offered = o.methods.length > 0 ? ` It offers: ${o.methods.map((m) => m.name).join('; ')}.` : '';
  const message = `${o.label} needs you to sign in${said ? ` ("${said}")` : ''}.${offered} Choose "Sign in…" (or run "Vigil: Sign In to Agent…"); your message can be sent again afterwards.`;
  return agentFailure('PROVIDER_AUTH', message, o.methods.length > 0 ? ['signIn', 'openLog'] : ['openLog']);
}
