// Logging as a port: the VS Code glue maps it onto a LogOutputChannel, tests collect records.

export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

export const silentLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** Prefixes every message with a component tag, so a log line says who wrote it. */
export function tagged(logger: Logger, tag: string): Logger {
  const p = (m: string | Error) => (m instanceof Error ? `[${tag}] ${m.message}` : `[${tag}] ${m}`);
  return {
    trace: (m, ...a) => logger.trace(p(m), ...a),
    debug: (m, ...a) => logger.debug(p(m), ...a),
    info: (m, ...a) => logger.info(p(m), ...a),
    warn: (m, ...a) => logger.warn(p(m), ...a),
    error: (m, ...a) => logger.error(p(m), ...a),
  };
}
