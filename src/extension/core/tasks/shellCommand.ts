// How a command line reaches the person's shell: one quoting rule, one place that picks the shell.

export interface ShellInvocation {
  file: string;
  args: string[];
  /** The command line as the person would type it (records, prompts, UI). */
  display: string;
}

/** POSIX single-quote quoting: safe for every byte except NUL. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line the shell runs for an ACP command and its args: the args quoted so the shell sees exactly
 * those words. Approvals are asked and matched on this same text, so what was approved is what runs.
 */
export function commandLineOf(command: string, args: readonly string[] | null | undefined): string {
  return args && args.length > 0 ? [command, ...args].map(shellQuote).join(' ') : command;
}

export function shellInvocation(command: string, args: readonly string[] | undefined, shell: string | undefined, env: NodeJS.ProcessEnv): ShellInvocation {
  const display = commandLineOf(command, args);
  if (process.platform === 'win32') {
    return { file: shell ?? env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', display], display };
  }
  return { file: shell ?? env.SHELL ?? '/bin/sh', args: ['-c', display], display };
}
