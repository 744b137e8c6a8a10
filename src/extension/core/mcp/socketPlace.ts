// Where the task bridge listens: a Unix domain socket in a private (0700, ours, not a symlink) folder of
// Vigil's storage, or of the temp folder when that path is too long for a socket; a named pipe on Windows.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { VigilError } from '../common/errors';
import { ensurePrivateDir } from '../common/privateDir';

/** sun_path holds 104 (macOS) to 108 (Linux) bytes with its NUL; stay below both. */
const MAX_SOCKET_PATH = 100;

/** Prepares the socket path for `name` (a per-window random id) and removes a stale socket there. */
export async function placeSocket(storageRoot: string, name: string): Promise<string> {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(name)) throw new VigilError('INVALID_INPUT', `bad task server name ${name}`);
  if (process.platform === 'win32') return `\\\\.\\pipe\\vigil-tasks-${name}`;
  let dir = path.join(storageRoot, 'mcp', name);
  if (Buffer.byteLength(path.join(dir, 's.sock')) > MAX_SOCKET_PATH) dir = path.join(os.tmpdir(), `vigil-${process.getuid?.() ?? 'u'}-${name}`);
  await ensurePrivateDir(dir, notPrivate);
  const socket = path.join(dir, 's.sock');
  await fs.rm(socket, { force: true });
  return socket;
}

/** Removes the socket's folder (best effort; a crashed window's folder is left to the next one with its name). */
export async function removeSocketPlace(socketPath: string): Promise<void> {
  if (process.platform === 'win32') return;
  await fs.rm(path.dirname(socketPath), { recursive: true, force: true }).catch(() => undefined);
}

const notPrivate = (dir: string) => new VigilError('TASK_FAILED', `${dir} is not a private folder of this user; remove it so Vigil's task server can start.`);
