// An agent's stderr as Vigil keeps it: redacted, stripped of control characters, cut per line, logged, and
// its last lines kept as the best explanation of a crash. Shared by a directly spawned agent and one behind
// the relay.

import { Redactor } from '../common/redactor';
import type { Logger } from '../ports/logger';
import { launchSecrets, type LaunchSpec } from './agentLaunch';

/** Enough for an error line followed by a stack trace (the notice shows it without the frames). */
const stderrTailLines = 60;
/** One stderr line longer than this is cut: a flood without newlines must not grow memory or the log. */
const stderrLineChars = 2_000;

export class StderrLog {
  readonly redactor: Redactor;
  private readonly lines: string[] = [];
  private label: string;

  constructor(spec: LaunchSpec, private readonly log: Logger) {
    this.label = spec.label;
    this.redactor = spec.redactor ?? new Redactor();
    this.redactor.add(launchSecrets(spec));
  }

  /** The agent is another than the one first named (a relay's, taken back): its lines carry its own name. */
  relabel(spec: Pick<LaunchSpec, 'label'>): void {
    this.label = spec.label;
  }

  line(line: string): void {
    if (!line.trim()) return;
    // Redacted whole, then cut: cutting first could leave the start of a key for the redactor to miss.
    // eslint-disable-next-line no-control-regex
    const whole = this.redactor.redact(line).replace(/\u001b\[[0-9;?]*[A-Za-z]|[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
    const safe = whole.length > stderrLineChars ? `${whole.slice(0, stderrLineChars)}…` : whole;
    this.lines.push(safe);
    if (this.lines.length > stderrTailLines) this.lines.shift();
    this.log.info(`${this.label} stderr: ${safe}`);
  }

  get tail(): string {
    return this.lines.join('\n');
  }
}
