// Starts a session's agent behind the relay: the relay program (dist/agentRelay.js) runs detached, in its
// own process group and session, under this Node or Electron; it says on its stdout once the agent runs
// (or why it could not start it) and is then no child of the host in anything that matters.

import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import type { LaunchSpec } from '../acp/agentLaunch';
import type { LivenessSettings } from '../supervisor/livenessSettings';
import { AGENT_MARKER_ENV } from '../supervisor/turnLeftovers';
import { RELAY_CONFIG_ENV, RELAY_PROTOCOL, type RelayConfig } from './relayProtocol';
import type { RelayPlace } from './relayPlace';

export interface RelayTimings {
  graceMs: number;
  livenessMs: number;
  killGraceMs: number;
  /** Default 16 MiB. */
  logCapBytes?: number;
  /** Default 64. */
  heldCap?: number;
}

/**
 * The relay's deadline from the settings: the grace with no window, the liveness bound while detached and the
 * unwinding time after its cancel. The relay cannot tell a model wait from a long silent tool, so it takes the
 * longer of the watchdog's bounds (the grace alone when the watchdog is off): it never stops what a window would not.
 */
export function relayTimings(graceSeconds: number, liveness: LivenessSettings): RelayTimings {
  const graceMs = Math.max(0, graceSeconds) * 1000;
  return { graceMs, livenessMs: liveness.enabled ? Math.max(liveness.timeoutMs, liveness.toolTimeoutMs) : graceMs, killGraceMs: liveness.graceMs };
}

/** The relay program beside this code: dist/ in the bundles, tsc's output folder in tests. */
export function relayProgram(dir: string = __dirname): string {
  return path.join(dir, 'agentRelay.js');
}

const readyMs = 30_000;

/**
 * V8 flags of the relay's process (before its script), one relay per live agent (bar: 10 MB PSS). Without
 * `--max-semi-space-size=1` V8's young generation grew to 16–32 MB committed during a streamed turn and
 * stayed so (bench/relay.bench.ts); with it, 2 MB. It only works on the command line. `--jitless`, which
 * the built-in agent also runs with, was measured and left out: ~1 ms more per message through the relay.
 */
export const relayNodeFlags: readonly string[] = ['--max-semi-space-size=1'];

/**
 * glibc's malloc settings of the relay's process (bar: 10 MB PSS per live agent). Without them glibc raised its
 * mmap threshold past the pipe's 64 KB reads and the 1 MB lines once they had been freed, and kept them in its
 * main heap: 10.8 MB of `[heap]` after a 21 MB turn; with 64 KB / 128 KB, 5.6 MB; with these, 3.6 MB (28 → 14 MB
 * PSS in all). Fixed thresholds: buffers of 16 KB and more are mapped and unmapped, not kept. The relay puts the
 * agent's own values back before it starts the agent (RelayConfig.agentEnv), as it does ELECTRON_RUN_AS_NODE.
 */
export const relayMallocEnv: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '16384', MALLOC_TRIM_THRESHOLD_: '65536' };

/** What the relay runs with and the agent does not get from it. */
const relayOwnEnv: Readonly<Record<string, string>> = { ELECTRON_RUN_AS_NODE: '1', ...relayMallocEnv };

/** Starts the relay and its agent; resolves with the relay's pid once the agent process runs. `program`: the bench runs dist's bundle. */
export function startRelay(spec: LaunchSpec, cwd: string, place: RelayPlace, timings: RelayTimings, nodePath = process.execPath, program = relayProgram()): Promise<{ pid: number; agentPid: number }> {
  const config: RelayConfig = {
    v: RELAY_PROTOCOL,
    dir: place.dir,
    socket: place.socket,
    command: spec.command,
    args: spec.args,
    label: spec.label,
    builtin: spec.builtin,
    cwd,
    agentEnv: Object.fromEntries(Object.keys(relayOwnEnv).map((name) => [name, spec.env[name] ?? null])),
    graceMs: timings.graceMs,
    livenessMs: timings.livenessMs,
    killGraceMs: timings.killGraceMs,
    logCapBytes: timings.logCapBytes ?? 16 * 1024 * 1024,
    heldCap: timings.heldCap ?? 64,
    ...(spec.env[AGENT_MARKER_ENV] ? { marker: spec.env[AGENT_MARKER_ENV] } : {}),
  };
  return new Promise((resolve, reject) => {
    const relay = spawn(nodePath, [...relayNodeFlags, program, place.sessionId], {
      cwd,
      env: { ...spec.env, ...relayOwnEnv, [RELAY_CONFIG_ENV]: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    let out = '';
    const timer = setTimeout(() => {
      relay.kill('SIGKILL');
      reject(new VigilError('AGENT_FAILED', `Vigil's agent relay did not start within ${readyMs / 1000} s.`));
    }, readyMs);
    relay.once('error', (error) => {
      clearTimeout(timer);
      reject(new VigilError('AGENT_FAILED', `Vigil's agent relay could not start: ${error.message}`, { cause: error }));
    });
    relay.stdout.setEncoding('utf8');
    relay.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (!out.includes('\n')) return;
      clearTimeout(timer);
      relay.unref();
      relay.stdout.destroy();
      let said: { ready?: boolean; agentPid?: number; error?: string; code?: string };
      try {
        said = JSON.parse(out.slice(0, out.indexOf('\n'))) as typeof said;
      } catch {
        said = { error: `unexpected output ${out.slice(0, 200)}` };
      }
      if (said.ready && typeof said.agentPid === 'number') resolve({ pid: relay.pid!, agentPid: said.agentPid });
      else reject(startError(spec, said.error ?? 'no answer', said.code));
    });
    relay.stdout.once('end', () => {
      if (out.includes('\n')) return;
      clearTimeout(timer);
      reject(new VigilError('AGENT_FAILED', `Vigil's agent relay ended before it started ${spec.label}.`));
    });
  });
}

/** The same words as a direct spawn's failure (agentProcess.ts): the fix is in the setting that names the command. */
function startError(spec: LaunchSpec, message: string, code: string | undefined): VigilError {
  const command = spec.command.length > 300 ? `${spec.command.slice(0, 300)}…` : spec.command;
  if (code === 'ENOENT') return new VigilError('AGENT_NOT_FOUND', `The agent command "${command}" was not found. Install it, or fix the command in the ${spec.setting} setting.`);
  if (code === 'EACCES') return new VigilError('AGENT_NOT_FOUND', `The agent command "${command}" cannot be run (not executable, or permission denied). Fix its permissions, or the command in the ${spec.setting} setting.`);
  return new VigilError('AGENT_FAILED', `Cannot start ${spec.label}: ${message} (check the ${spec.setting} setting).`);
}
