// A fixture process driven one JSON line at a time: it prints `{"ready":…}` once, then one reply per command.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as readline from 'node:readline';

export class LineProtocolChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  private readonly replies: Array<(reply: Record<string, unknown>) => void> = [];

  constructor(script: string, args: string[]) {
    this.child = spawn(process.execPath, [script, ...args]);
    let onReady!: () => void;
    this.ready = new Promise((resolve) => (onReady = resolve));
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as Record<string, unknown>;
      if ('ready' in reply) onReady();
      else this.replies.shift()?.(reply);
    });
  }

  send(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.child.stdin.write(JSON.stringify(command) + '\n');
    });
  }

  /** Wakes the process if it was frozen, then sends `signal`; nothing if it has ended. */
  stop(signal: NodeJS.Signals): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGCONT');
    this.child.kill(signal);
  }
}
