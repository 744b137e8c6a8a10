// The agent's only log sink: stderr (stdout carries the ACP stream). The host forwards it to its log channel.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export function log(level: LogLevel, message: string): void {
  process.stderr.write(`[vigil-agent] ${level}: ${message}\n`);
}
