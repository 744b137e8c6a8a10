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

export function shellInvocation(command: string, args: readonly string[] | undefined, shell: string | undefined, env: NodeJS.ProcessEnv): ShellInvocation {
  // ACP gives a command and separate args: quote them so the shell sees exactly those words.
  const display = args && args.length > 0 ? [command, ...args].map(shellQuote).join(' ') : command;
  if (process.platform === 'win32') {
    return { file: shell ?? env.ComSpec ?? 'cmd.exe', args: ['/d', '/s', '/c', display], display };
  }
  return { file: shell ?? env.SHELL ?? '/bin/sh', args: ['-c', display], display };
}
