// The text side of a task's terminal mirror, without VS Code: buffers until the terminal opens,
// turns bare newlines into CRLF, answers typing with a hint, and prints the exit status once.

import { formatDuration } from '../../shared/duration';
import { shown } from '../core/acp/clientGrants';
import { taskEndSentence } from '../core/tasks/taskEnd';

export interface MirroredTask {
  id: string;
  command: string;
  status: 'running' | 'exited' | 'killed' | 'lost';
  exitCode: number | null;
  signal: string | null;
  startedAt: number;
  endedAt: number | null;
}

export const READ_ONLY_HINT = 'This terminal only mirrors the task: typing and Ctrl+C do not reach it. To stop it, run “Vigil: Kill Background Task…”.';

const DIM = '\x1b[2m';
const BOLD_RED = '\x1b[1;31m';
const GREEN = '\x1b[32m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** A terminal wants CRLF; task output has bare LF (and sometimes CRLF already, which must stay as is). */
export function toTerminalText(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

/** "exited with code 0 after 12 s", "was killed (SIGTERM) after 3 s", "was lost: …". */
export function describeEnd(task: MirroredTask): string {
  if (task.status === 'lost') return `${taskEndSentence(task)} (the window that started it may have closed mid-run)`;
  const after = task.status !== 'running' && task.endedAt !== null ? ` after ${formatDuration(task.endedAt - task.startedAt)}` : '';
  return `${taskEndSentence(task)}${after}`;
}

export class TaskMirrorFeed {
  private opened = false;
  private readonly early: string[] = [];
  private ended = false;
  /** Set after a hint, cleared by output: one hint per burst of typing, not one per key. */
  private hinted = false;
  /** Whether the last text written ended a line, so the status line starts on its own. */
  private atLineStart = true;

  constructor(private readonly write: (text: string) => void) {}

  /** The terminal opened: flush what arrived before (VS Code drops writes before `open`). */
  open(): void {
    if (this.opened) return;
    this.opened = true;
    for (const text of this.early.splice(0)) this.write(text);
  }

  header(task: MirroredTask, truncated: boolean): void {
    // Escaped as the approval showed it (raw, an ESC or OSC 8 sequence could draw another command here), but
    // whole: the mirror's redactor must see a secret in it entire, not cut in two.
    this.emit(`${DIM}Vigil task ${task.id} · ${shown(task.command, Number.POSITIVE_INFINITY)}${RESET}\r\n`);
    if (truncated) this.emit(`${DIM}… (earlier output was dropped; the task's log keeps more)${RESET}\r\n`);
  }

  output(chunk: string): void {
    if (chunk.length === 0 || this.ended) return;
    const text = toTerminalText(chunk);
    this.hinted = false;
    this.emit(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** Prints the end of the task once; later calls (duplicate events) add nothing. */
  end(task: MirroredTask): void {
    if (this.ended || task.status === 'running') return;
    this.ended = true;
    const ok = task.status === 'exited' && task.exitCode === 0 && !task.signal;
    const colour = ok ? GREEN : task.status === 'lost' ? YELLOW : BOLD_RED;
    this.emit(`${this.atLineStart ? '' : '\r\n'}${colour}[Task ${task.id} ${describeEnd(task)}]${RESET}\r\n`);
    this.atLineStart = true;
  }

  get hasEnded(): boolean {
    return this.ended;
  }

  /** Anything typed, Ctrl+C included: never forwarded; a one-line hint instead. */
  input(_data: string): void {
    if (this.hinted) return;
    this.hinted = true;
    this.emit(`${this.atLineStart ? '' : '\r\n'}${YELLOW}${READ_ONLY_HINT}${RESET}\r\n`);
    this.atLineStart = true;
  }

  private emit(text: string): void {
    if (this.opened) this.write(text);
    else this.early.push(text);
  }
}
