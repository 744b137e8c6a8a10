// An MCP transport over a stdio server process the agent starts: in its own process group (so the whole tree goes
// when it is stopped), with only a safe part of the agent's environment (never the model key), junk lines skipped,
// and every live group killed when the agent process exits.

import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { log } from '../log';

/** Variables a server may inherit from the agent (the MCP SDK's own choice, plus what node tools need to run). */
const inherited = process.platform === 'win32'
  ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PATHEXT', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'TMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
  : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'LC_ALL', 'TMPDIR'];
/** One JSON-RPC line may not exceed this; a server that streams without newlines is cut off. */
const maxLineBytes = 8 * 1024 * 1024;
const stderrTailChars = 2_000;
const killGraceMs = 2_000;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** The agent may exit at any moment (the host kills or releases it): its servers must not outlive it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) killGroup(child, 'SIGKILL');
  });
}

export interface StdioServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export class ServerProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer({ maxBufferSize: maxLineBytes });
  private stderrTail = '';
  private closed = false;
  /** How the process ended, once it did: for the error the model and the log see. */
  exitDescription: string | undefined;

  constructor(private readonly spec: StdioServerSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines the server wrote on stderr (bounded), for error messages. */
  get recentStderr(): string {
    return this.stderrTail.trim();
  }

  start(): Promise<void> {
    installExitHook();
    return new Promise((resolve, reject) => {
      const env: Record<string, string> = {};
      for (const name of inherited) if (process.env[name] !== undefined) env[name] = process.env[name]!;
      const child = spawn(this.spec.command, this.spec.args, {
        cwd: this.spec.cwd,
        env: { ...env, ...this.spec.env },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
        shell: false,
      });
      this.child = child;
      live.add(child);
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        live.delete(child);
        this.exitDescription = `could not be started: ${error.message}`;
        reject(error);
        this.finish();
      });
      child.once('exit', (code, signal) => {
        live.delete(child);
        this.exitDescription ??= signal ? `was killed by ${signal}` : `exited with code ${code ?? 'unknown'}`;
      });
      // After its output was read to the end (a last answer written just before exiting still counts).
      child.once('close', () => this.finish());
      child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr!.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-stderrTailChars);
      });
      // A server that closed its stdin must not crash the agent with EPIPE.
      child.stdin!.on('error', (error) => log('debug', `mcp server stdin: ${error.message}`));
    });
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      this.onerror?.(new Error(`the server wrote a line longer than ${maxLineBytes} bytes; it was dropped (${(error as Error).message})`));
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // Not JSON-RPC (a stray console.log, a banner): skipped, the next line may be fine.
        this.onerror?.(new Error(`the server wrote a line that is not JSON-RPC; skipped (${(error as Error).message.slice(0, 200)})`));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) return Promise.reject(new Error(`the server ${this.exitDescription ?? 'is not running'}`));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Stops the server's whole process group: TERM, then KILL if it lingers. */
  close(): Promise<void> {
    const child = this.child;
    if (child) {
      child.stdin?.end();
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), killGraceMs);
      timer.unref();
      child.once('exit', () => clearTimeout(timer));
    }
    this.finish();
    return Promise.resolve();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
