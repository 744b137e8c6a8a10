// Where a session's relay keeps its files: `relays/<session>/` in Vigil's storage (0700, ours, not a
// symlink), with its socket there or, when that path is too long for a socket, in a private folder of the
// temp folder (state.json names it either way).

import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import { ensurePrivateDir } from '../common/privateDir';
import { relayFileNames, RELAY_PROTOCOL, type RelayEnded, type RelayState } from './relayProtocol';

/** sun_path holds 104 (macOS) to 108 (Linux) bytes with its NUL; stay below both. */
const MAX_SOCKET_PATH = 100;

export interface RelayPlace {
  sessionId: string;
  dir: string;
  socket: string;
}

const relaysRoot = (storageRoot: string) => path.join(storageRoot, 'relays');

/** The folder of `sessionId`'s relay, made private; a stale socket there is removed. */
export async function placeRelay(storageRoot: string, sessionId: string): Promise<RelayPlace> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) throw new VigilError('INVALID_INPUT', `bad session id for a relay: ${sessionId}`);
  const dir = path.join(relaysRoot(storageRoot), sessionId);
  await ensurePrivateDir(dir, notPrivate);
  let socketDir = dir;
  if (Buffer.byteLength(path.join(dir, relayFileNames.socket)) > MAX_SOCKET_PATH) {
    // Short, and still one per relay folder: a temp folder's own path may be long already.
    socketDir = path.join(os.tmpdir(), `vigil-r-${process.getuid?.() ?? 'u'}-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}`);
    await ensurePrivateDir(socketDir, notPrivate);
  }
  const socket = process.platform === 'win32' ? `\\\\.\\pipe\\vigil-relay-${sessionId}` : path.join(socketDir, relayFileNames.socket);
  return { sessionId, dir, socket };
}

/** Removes a relay's folder (and its socket's, when that is elsewhere). */
export async function removeRelayPlace(place: { dir: string; socket: string }): Promise<void> {
  await fs.rm(place.dir, { recursive: true, force: true }).catch(() => undefined);
  if (process.platform !== 'win32' && path.dirname(place.socket) !== place.dir) await fs.rm(path.dirname(place.socket), { recursive: true, force: true }).catch(() => undefined);
}

/** What is left of one session's relay: its state while it runs, what it kept and why it ended. */
export interface RelayRemains {
  sessionId: string;
  dir: string;
  state?: RelayState;
  ended?: RelayEnded;
}

/** Every session with a relay folder under `storageRoot` (a relay running, or one that ended without a window). */
export async function listRelays(storageRoot: string): Promise<RelayRemains[]> {
  const names = await fs.readdir(relaysRoot(storageRoot)).catch(() => [] as string[]);
  const out: RelayRemains[] = [];
  for (const sessionId of names) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId)) continue;
    const dir = path.join(relaysRoot(storageRoot), sessionId);
    const state = await readJson<RelayState>(path.join(dir, relayFileNames.state));
    const ended = await readJson<RelayEnded>(path.join(dir, relayFileNames.ended));
    out.push({ sessionId, dir, ...(state && isState(state) ? { state } : {}), ...(ended && typeof ended.reason === 'string' ? { ended: { ...ended, reason: ended.reason.slice(0, 500) } } : {}) });
  }
  return out;
}

function isState(s: RelayState): boolean {
  return typeof s.pid === 'number' && typeof s.agentPid === 'number' && typeof s.socket === 'string' && typeof s.v === 'number';
}

/** A relay of another version is found by its state's `v`: the caller refuses it. */
export function sameVersion(state: RelayState): boolean {
  return state.v === RELAY_PROTOCOL;
}

/** How a person is told that the agent ran behind a relay this Vigil cannot speak to. */
export function relayVersionWords(theirs: unknown): string {
  return `The agent ran behind a relay of another version of Vigil (relay protocol ${String(theirs)}; this one speaks ${RELAY_PROTOCOL}), which this window cannot take the turn back from; it was stopped. Resume continues the turn with a new agent.`;
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

const notPrivate = (dir: string) => new VigilError('AGENT_FAILED', `${dir} is not a private folder of this user; remove it so Vigil can start the agent.`);
