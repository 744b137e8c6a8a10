// Starts and stops a real VS Code workbench (code-server) for tests, in its own process group,
// with every file it writes kept inside a per-run folder (nothing under $HOME).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export interface CodeServerOptions {
  /** Folder opened in the workbench. */
  workspace: string;
  /** VSIX installed before start (the packaged extension, as a user would install it). */
  vsix?: string;
  /** User settings merged over the quiet defaults. */
  settings?: Record<string, unknown>;
  /** Extra environment for the server and so for the extension host. */
  env?: Record<string, string>;
  /** Name of the run folder under .vscode-test/runs (a unique suffix is added). */
  name?: string;
  /**
   * Start with workspace trust enabled, as a person's VS Code is: no `--disable-workspace-trust`, and the
   * trust prompt on every start, to be answered with `answerWorkspaceTrust` (workspaceTrust.ts). Default off.
   */
  workspaceTrust?: boolean;
}

const quietSettings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'security.workspace.trust.enabled': false,
  'workbench.enableExperiments': false,
  'git.enabled': false,
  'git.autoRepositoryDetection': false,
  'github.gitAuthentication': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'window.commandCenter': false,
};

export function codeServerEntry(): string {
  const version = process.env.VIGIL_CODE_SERVER_VERSION ?? '4.100.3';
  return path.join(repoRoot, '.vscode-test', `code-server-${version}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
}

/** Installs code-server if needed (idempotent) and returns its entry script. */
export function ensureCodeServer(): string {
  const entry = codeServerEntry();
  const result = spawnSync('bash', [path.join(repoRoot, 'scripts', 'installCodeServer.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error('code-server could not be installed; see the output above');
  return entry;
}

export class CodeServer {
  private exited = false;

  private constructor(
    readonly url: string,
    readonly port: number,
    readonly runDir: string,
    private readonly child: ChildProcess,
    private readonly output: string[],
  ) {
    child.once('exit', () => (this.exited = true));
  }

  static async start(options: CodeServerOptions): Promise<CodeServer> {
    const entry = ensureCodeServer();
    const runsRoot = path.join(repoRoot, '.vscode-test', 'runs');
    mkdirSync(runsRoot, { recursive: true });
    const runDir = await fs.mkdtemp(path.join(runsRoot, `${options.name ?? 'run'}-`));
    const dirs = ['user-data/User', 'extensions', 'home', 'xdg-config', 'xdg-data', 'xdg-cache', 'tmp'].map((d) => path.join(runDir, d));
    for (const d of dirs) mkdirSync(d, { recursive: true });
    const trustSettings = options.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always' } : {};
    writeFileSync(path.join(runDir, 'user-data', 'User', 'settings.json'), JSON.stringify({ ...quietSettings, ...trustSettings, ...options.settings }, null, 2));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: path.join(runDir, 'home'),
      XDG_CONFIG_HOME: path.join(runDir, 'xdg-config'),
      XDG_DATA_HOME: path.join(runDir, 'xdg-data'),
      XDG_CACHE_HOME: path.join(runDir, 'xdg-cache'),
      TMPDIR: path.join(runDir, 'tmp'),
      EXTENSIONS_GALLERY: '{}',
      // Marks every descendant, even those in their own process groups (agents, background tasks).
      VIGIL_TEST_RUN_ID: path.basename(runDir),
      VSCODE_CLI: undefined,
      ELECTRON_RUN_AS_NODE: undefined,
      ...options.env,
    };
    const common = ['--user-data-dir', path.join(runDir, 'user-data'), '--extensions-dir', path.join(runDir, 'extensions')];
    if (options.vsix) copyInstalled(installedOnce(entry, options.vsix, env), path.join(runDir, 'extensions'));
    const args = [
      entry,
      // Port 0: the system picks a free port when code-server binds, so a port probed free and taken by
      // another run (two test runs on one machine) before the bind can never be mixed up with ours.
      '--bind-addr', '127.0.0.1:0',
      '--auth', 'none',
      ...common,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--ignore-last-opened',
      options.workspace,
    ];
    // Own process group, so that stop() takes the extension host and its children too.
    const child = spawn(process.execPath, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.length > 400) output.splice(0, output.length - 400);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let port: number;
    try {
      port = await listeningPort(child, output, 60_000);
    } catch (error) {
      stopGroup(child.pid);
      await killMarkedProcesses(`VIGIL_TEST_RUN_ID=${path.basename(runDir)}`);
      throw error;
    }
    const server = new CodeServer(`http://127.0.0.1:${port}/`, port, runDir, child, output);
    try {
      await server.waitHealthy(60_000);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get log(): string {
    return this.output.join('');
  }

  private async waitHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error(`code-server exited during start:\n${this.log}`);
      try {
        const response = await fetch(`${this.url}healthz`);
        if (response.status === 200) return;
      } catch {
        // Not listening yet: poll again below.
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`code-server did not become healthy within ${timeoutMs} ms:\n${this.log}`);
  }

  /** Stops the whole process group: TERM, then KILL after a grace period. */
  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    };
    signalGroup('SIGTERM');
    const deadline = Date.now() + 5_000;
    while (!this.exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // The extension host can outlive the server process: always finish the group.
    signalGroup('SIGKILL');
    await killMarkedProcesses(`VIGIL_TEST_RUN_ID=${path.basename(this.runDir)}`);
  }
}

/**
 * The extensions folder of `vsix` installed by code-server's own `--install-extension`, once per VSIX content
 * for all runs and test processes: the install starts a VS Code CLI (seconds on a busy machine) and was done
 * for every workbench. Two processes installing the same VSIX at once both install; the first rename wins.
 */
function installedOnce(entry: string, vsix: string, env: NodeJS.ProcessEnv): string {
  const digest = createHash('sha256').update(readFileSync(vsix)).digest('hex').slice(0, 16);
  const templatesDir = path.join(repoRoot, '.vscode-test', 'installed-vsix');
  const template = path.join(templatesDir, digest);
  if (existsSync(path.join(template, 'extensions.json'))) return template;
  mkdirSync(templatesDir, { recursive: true });
  const staging = mkdtempSync(path.join(templatesDir, `${digest}-staging-`));
  try {
    const dirs = ['--user-data-dir', path.join(staging, 'user-data'), '--extensions-dir', path.join(staging, 'extensions')];
    const install = spawnSync(process.execPath, [entry, ...dirs, '--install-extension', vsix], { env, encoding: 'utf8' });
    if (install.status !== 0) throw new Error(`installing ${vsix} failed:\n${install.stdout}\n${install.stderr}`);
    // Named by the folder it will be found in, so that every copy can name its own (copyInstalled).
    const index = path.join(staging, 'extensions', 'extensions.json');
    writeFileSync(index, readFileSync(index, 'utf8').split(path.join(staging, 'extensions')).join(template));
    try {
      renameSync(path.join(staging, 'extensions'), template);
    } catch (error) {
      // Another test process renamed its identical install into place first.
      if (!existsSync(path.join(template, 'extensions.json'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  pruneStale(templatesDir);
  return template;
}

/** Installs of earlier VSIXes (and stagings of killed runs) left a day ago; today's may still be in use. */
function pruneStale(templatesDir: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(templatesDir)) {
    const dir = path.join(templatesDir, name);
    try {
      if (statSync(dir).mtimeMs < dayAgo) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another test process.
    }
  }
}

/** A copy of an installed extensions folder; its extensions.json names the folder it was installed in. */
function copyInstalled(template: string, target: string): void {
  cpSync(template, target, { recursive: true });
  const index = path.join(target, 'extensions.json');
  writeFileSync(index, readFileSync(index, 'utf8').split(template).join(target));
}

/** The port code-server bound (it logs `HTTP server listening on http://127.0.0.1:<port>/`). */
function listeningPort(child: ChildProcess, output: string[], timeoutMs: number): Promise<number> {
  const found = () => {
    const match = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output.join(''));
    return match ? Number(match[1]) : undefined;
  };
  return new Promise((resolve, reject) => {
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', exited);
      settle();
    };
    const check = () => {
      const port = found();
      if (port !== undefined) done(() => resolve(port));
    };
    const exited = () => done(() => reject(new Error(`code-server exited during start:\n${output.join('')}`)));
    const timer = setTimeout(() => done(() => reject(new Error(`code-server did not say which port it listens on within ${timeoutMs} ms:\n${output.join('')}`))), timeoutMs);
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', exited);
    check();
  });
}

function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills every process whose environment carries `marker` (agents and tasks leave the server's group). */
export async function killMarkedProcesses(marker: string): Promise<number> {
  let killed = 0;
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = await fs.readFile(`/proc/${entry}/environ`, 'latin1');
    } catch {
      continue; // The process ended meanwhile, or is not ours to read.
    }
    if (!environ.split('\0').includes(marker)) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed += 1;
    } catch {
      continue; // Already gone.
    }
  }
  return killed;
}
