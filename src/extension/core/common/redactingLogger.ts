// A Logger that cuts secrets out of every message and argument before passing them on.

import type { Logger } from '../ports/logger';
import type { Redactor } from './redactor';

export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const text = (m: string | Error): string => redactor.redact(m instanceof Error ? (m.stack ?? `${m.name}: ${m.message}`) : m);
  // An Error is passed on as its (redacted) stack text: the sink would otherwise print it verbatim.
  const args = (a: unknown[]): unknown[] => a.map((v) => (v instanceof Error ? text(v) : redactor.redactValue(v)));
  return {
    trace: (m, ...a) => logger.trace(text(m), ...args(a)),
    debug: (m, ...a) => logger.debug(text(m), ...args(a)),
    info: (m, ...a) => logger.info(text(m), ...args(a)),
    warn: (m, ...a) => logger.warn(text(m), ...args(a)),
    error: (m, ...a) => logger.error(text(m), ...args(a)),
  };
}
