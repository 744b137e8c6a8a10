// Runs the `git` binary for the checkpoint store, isolated from the person's git: its own GIT_DIR in Vigil's
// storage, the workspace folder as work tree, and no user or system configuration, hooks, fsmonitor or signing.

import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { VigilError } from '../common/errors';

export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

export interface GitRunOptions {
  input?: Buffer | string;
  signal?: AbortSignal;
  /** Exit codes that are answers, not failures (e.g. 1 from `cat-file -e`). */
  okCodes?: number[];
  /** More `-c` settings for this call, after (so over) the forced ones. */
  config?: string[];
}

/** Settings every call gets on its command line, so nothing from any configuration file can change them. */
const FORCED_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  // Every file is streamed into one pack per `git add` instead of one loose object file each: the first
  // checkpoint of a 10,000-file folder writes one file, not 10,000 (and the store is ~50x smaller).
  'core.bigFileThreshold=1',
  'commit.gpgSign=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'advice.addEmbeddedRepo=false',
  'advice.addIgnoredFile=false',
  'submodule.recurse=false',
  'core.logAllRefUpdates=false',
];

export class GitRunner {
  /** While set, each git runs at a lower CPU priority: work nobody waits for yields to the turn's own. */
  lowPriority = false;

  constructor(
    private readonly gitDir: string,
    private readonly workTree: string,
    /** A private empty folder: HOME and XDG_CONFIG_HOME, so no per-user file is ever read. */
    private readonly home: string,
    private readonly binary = 'git',
  ) {}

  env(): NodeJS.ProcessEnv {
    // A clean environment: nothing GIT_* of the host (an index file, an object directory) leaks in.
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.home,
      XDG_CONFIG_HOME: this.home,
      LC_ALL: 'C',
      GIT_DIR: this.gitDir,
      GIT_WORK_TREE: this.workTree,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_LITERAL_PATHSPECS: '0',
      GIT_AUTHOR_NAME: 'Vigil',
      GIT_AUTHOR_EMAIL: 'checkpoints@vigil.invalid',
      GIT_COMMITTER_NAME: 'Vigil',
      GIT_COMMITTER_EMAIL: 'checkpoints@vigil.invalid',
    };
  }

  run(args: string[], options: GitRunOptions = {}): Promise<GitResult> {
    const full = [...FORCED_CONFIG, ...(options.config ?? [])].flatMap((c) => ['-c', c]).concat(args);
    return new Promise((resolve, reject) => {
      const child = spawn(this.binary, full, { cwd: this.workTree, env: this.env(), stdio: ['pipe', 'pipe', 'pipe'], signal: options.signal });
      if (this.lowPriority && child.pid !== undefined) {
        try {
          setPriority(child.pid, 10);
        } catch {
          // Not allowed here: it runs at the usual priority.
        }
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let errBytes = 0;
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        // Bounded: a noisy git never fills memory with warnings.
        if (errBytes < 64_000) err.push(chunk);
        errBytes += chunk.length;
      });
      child.stdin.on('error', () => undefined);
      child.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') reject(new VigilError('NOT_FOUND', 'Checkpoints need the git program, and it was not found on PATH. Install git to use checkpoints.', { cause: error }));
        else if (error.name === 'AbortError') reject(new VigilError('CANCELLED', `git ${args[0]} was stopped`, { cause: error }));
        else reject(new VigilError('STORAGE_UNWRITABLE', `git ${args[0]} could not run: ${error.message}`, { cause: error }));
      });
      child.on('close', (code, signal) => {
        const stderr = Buffer.concat(err).toString('utf8').trim();
        if (code === 0 || (code !== null && options.okCodes?.includes(code))) {
          resolve({ stdout: Buffer.concat(out), stderr });
          return;
        }
        if (options.signal?.aborted) return; // the 'error' event already rejected
        const why = signal ? `was killed by ${signal}` : `exited with ${code}`;
        reject(Object.assign(new VigilError('STORAGE_UNWRITABLE', `git ${args[0]} ${why}: ${stderr.slice(0, 2_000)}`), { exitCode: code }));
      });
      child.stdin.end(options.input ?? '');
    });
  }
}
