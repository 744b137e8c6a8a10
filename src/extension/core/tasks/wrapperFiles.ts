// Which task wrapper runs a command, where its file is, and how it is started. The wrappers are files of
// their own, shipped beside the bundle that runs the registry (dist/): taskWrapper.pl under /usr/bin/perl
// where there is one (Linux, macOS: ~0.5 MB per running task), else taskWrapper.js under this Node or
// Electron (Windows: ~7 MB). Both write the same bounded log and the same exit record, so a task keeps
// whichever wrapper started it across a reload or an upgrade.

import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** What the Node wrapper (taskWrapper.ts) reads from its one argument. */
export interface WrapperConfig {
  taskId: string;
  file: string;
  args: string[];
  cwd: string;
  log: string;
  exit: string;
  /** Bound of each of `log` and `log.1`. */
  half: number;
  keepElectronRunAsNode: boolean;
}

export type WrapperKind = 'perl' | 'node';

/** A fixed path, never looked up on PATH: a workspace may put anything first on PATH. */
export const PERL = '/usr/bin/perl';

let perlPresent: boolean | undefined;

/** The wrapper a new task gets: perl where /usr/bin/perl exists (not on Windows), else Node. */
export function defaultWrapperKind(): WrapperKind {
  if (process.platform === 'win32') return 'node';
  perlPresent ??= existsSync(PERL);
  return perlPresent ? 'perl' : 'node';
}

/**
 * The wrapper files in `dir` (default: beside this code, i.e. dist/ in the bundles). Run from tsc's
 * output (tests, benches), taskWrapper.js is the compiled module beside this one and taskWrapper.pl,
 * which tsc does not copy, is read from the source folder.
 */
export function wrapperFiles(dir: string = __dirname): { node: string; perl: string } {
  const perl = path.join(dir, 'taskWrapper.pl');
  const source = path.resolve(dir, '..', '..', '..', '..', '..', 'src', 'extension', 'core', 'tasks', 'taskWrapper.pl');
  return { node: path.join(dir, 'taskWrapper.js'), perl: existsSync(perl) || !existsSync(source) ? perl : source };
}

export interface WrapperLaunch {
  taskId: string;
  file: string;
  args: readonly string[];
  cwd: string;
  log: string;
  exit: string;
  half: number;
}

/**
 * Linux system call numbers of fsync, gettimeofday and prctl by CPU (x86-64's own table; arm64 and riscv64
 * use the generic one), so the Perl wrapper needs no module between the command's exit and its record, and
 * can make itself the child subreaper of the command's tree (elsewhere it cannot, and does not try).
 */
const LINUX_SYSCALLS: Partial<Record<string, string>> = {
  x64: 'fsync=74,gettimeofday=96,prctl=157',
  arm64: 'fsync=82,gettimeofday=169,prctl=167',
  riscv64: 'fsync=82,gettimeofday=169,prctl=167',
};

/**
 * What the Perl wrapper is told in its environment (it removes it before starting the command). The key is
 * always there: undefined where the host knows no numbers, so that a value from the agent's request or the
 * host's own environment never reaches the wrapper (spawn leaves undefined values out).
 */
export function perlWrapperEnv(platform: NodeJS.Platform = process.platform, arch: string = process.arch): NodeJS.ProcessEnv {
  return { VIGIL_WRAPPER_SYSCALLS: platform === 'linux' ? LINUX_SYSCALLS[arch] : undefined };
}

/**
 * The program, argv and extra environment that start `kind` for one task; every argv names the task
 * (isTaskWrapper reads it). The extra environment goes over everything else, the request's included.
 */
export function wrapperCommand(
  kind: WrapperKind,
  launch: WrapperLaunch,
  options: { dir?: string; nodePath: string; keepElectronRunAsNode: boolean },
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const files = wrapperFiles(options.dir);
  if (kind === 'perl') {
    // The command gets ELECTRON_RUN_AS_NODE only if the host itself had it (nothing here runs under Electron).
    const electron = options.keepElectronRunAsNode ? {} : { ELECTRON_RUN_AS_NODE: undefined };
    return { command: PERL, args: [files.perl, launch.taskId, launch.log, launch.exit, String(launch.half), launch.file, ...launch.args], env: { ...perlWrapperEnv(), ...electron } };
  }
  const config: WrapperConfig = { ...launch, args: [...launch.args], keepElectronRunAsNode: options.keepElectronRunAsNode };
  // Electron runs the Node wrapper as Node; the Node wrapper gives the command the host's value back.
  return { command: options.nodePath, args: [files.node, JSON.stringify(config)], env: { ELECTRON_RUN_AS_NODE: '1' } };
}
