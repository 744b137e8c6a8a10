// Builds a hostile repository in a temp folder: symlinks out and to nothing, chains and loops, `..`-named files,
// a FIFO, a UNIX socket, a device (when the process may create one), sparse 400 MB files, plus an "outside" folder
// whose snapshot proves nothing outside the workspace changed. Every hostile input the suites try is listed here.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const secretText = 'OUTSIDE-SECRET do not leak';
export const bigBytes = 400 * 1024 * 1024;

export type Expectation =
  /** Served without asking. */
  | 'inside'
  /** Outside: refused unless the person approves; `shows` is the resolved target the question must name. */
  | { outside: string }
  /** Refused outright, with an error matching this. */
  | { refused: RegExp };

export interface HostileInput {
  name: string;
  /** Absolute, or relative to the workspace (relative paths are taken against the workspace root). */
  path: string;
  op: 'read' | 'write' | 'list';
  expect: Expectation;
}

export class HostileRepo {
  private server: net.Server | undefined;
  /** Set when the process may create a character device (root with CAP_MKNOD); else that input is not tried. */
  device: string | undefined;

  private constructor(
    readonly base: string,
    readonly ws: string,
    readonly outside: string,
  ) {}

  static async create(): Promise<HostileRepo> {
    const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-hostile-')));
    const repo = new HostileRepo(base, path.join(base, 'ws'), path.join(base, 'outside'));
    await repo.build();
    return repo;
  }

  p(rel: string): string {
    return path.join(this.ws, rel);
  }

  o(rel: string): string {
    return path.join(this.outside, rel);
  }

  private async build(): Promise<void> {
    const { ws, outside } = this;
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.mkdir(path.join(outside, 'dir'), { recursive: true });
    await fs.writeFile(this.o('secret.txt'), secretText);
    await fs.writeFile(this.o('dir/key.txt'), secretText);
    await fs.writeFile(this.p('README.md'), '# Hostile demo\nline two\nline three\n');
    await fs.writeFile(this.p('src/a.ts'), 'const x = 1;\n// TODO: fix\n');
    await fs.writeFile(this.p('..env'), 'TOKEN=inside\n');
    await fs.mkdir(this.p('..hidden'));
    await fs.writeFile(this.p('..hidden/file.txt'), 'hidden but inside\n');
    await fs.symlink(this.o('new.txt'), this.p('notes')); // broken, to outside
    await fs.symlink(this.o('dir'), this.p('outdir')); // to an outside folder
    await fs.symlink('chain2', this.p('chain1')); // chain leading out
    await fs.symlink('chain3', this.p('chain2'));
    await fs.symlink(path.relative(ws, this.o('secret.txt')), this.p('chain3'));
    await fs.symlink('inchain2', this.p('inchain1')); // chain staying inside
    await fs.symlink('src/a.ts', this.p('inchain2'));
    await fs.symlink('src', this.p('srclink')); // folder link staying inside
    await fs.symlink('nothing-here', this.p('dangling-inside'));
    await fs.symlink('loop2', this.p('loop1'));
    await fs.symlink('loop1', this.p('loop2'));
    await fs.symlink('/', this.p('fsroot'));
    await fs.symlink('/dev/zero', this.p('devzero'));
    await fs.symlink('.', this.p('self'));
    await run('mkfifo', [this.p('fifo')]);
    this.server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.p('sock'), resolve);
    });
    try {
      await run('mknod', [this.p('chardev'), 'c', '1', '3']); // same numbers as /dev/null
      this.device = this.p('chardev');
    } catch {
      this.device = undefined; // not privileged: the device case is covered by /dev/zero through a symlink
    }
  }

  /** Sparse 400 MB files: one with three short lines first, one with no newline at all. Cheap on disk. */
  async addBigFiles(): Promise<{ lines: string; nul: string }> {
    const lines = this.p('big-lines.txt');
    const nul = this.p('big-nul.bin');
    await fs.writeFile(lines, 'first\nsecond\nthird\n');
    await fs.truncate(lines, bigBytes);
    await fs.writeFile(nul, '');
    await fs.truncate(nul, bigBytes);
    return { lines, nul };
  }

  /** Every hostile input, what it is and what it must get. */
  inputs(): HostileInput[] {
    const p = (rel: string) => this.p(rel);
    const o = (rel: string) => this.o(rel);
    const notRegular = (kind: string) => ({ refused: new RegExp(`is a ${kind}, not a regular file`) });
    const list: HostileInput[] = [
      { name: 'broken symlink to outside, written', path: p('notes'), op: 'write', expect: { outside: o('new.txt') } },
      { name: 'broken symlink to outside, read', path: p('notes'), op: 'read', expect: { outside: o('new.txt') } },
      { name: 'symlink to an outside folder, read through', path: p('outdir/key.txt'), op: 'read', expect: { outside: o('dir/key.txt') } },
      { name: 'symlink to an outside folder, new file written through', path: p('outdir/new.txt'), op: 'write', expect: { outside: o('dir/new.txt') } },
      { name: 'symlink to an outside folder, listed', path: p('outdir'), op: 'list', expect: { outside: o('dir') } },
      { name: 'symlink chain leading out, read', path: p('chain1'), op: 'read', expect: { outside: o('secret.txt') } },
      { name: 'symlink chain leading out, written', path: p('chain1'), op: 'write', expect: { outside: o('secret.txt') } },
      { name: 'symlink inside pointing at nothing, written', path: p('dangling-inside'), op: 'write', expect: { outside: p('nothing-here') } },
      { name: 'symlink to /, read through', path: p('fsroot/etc/passwd'), op: 'read', expect: { outside: '/etc/passwd' } },
      { name: 'symlink to /dev/zero', path: p('devzero'), op: 'read', expect: { outside: '/dev/zero' } },
      { name: 'symlink loop', path: p('loop1'), op: 'read', expect: { refused: /more than 40 symlinks/ } },
      { name: 'absolute outside path, read', path: o('secret.txt'), op: 'read', expect: { outside: o('secret.txt') } },
      { name: 'absolute outside path, written', path: o('secret.txt'), op: 'write', expect: { outside: o('secret.txt') } },
      { name: '../ escape', path: p('../outside/secret.txt'), op: 'read', expect: { outside: o('secret.txt') } },
      { name: 'relative ../ escape', path: '../outside/secret.txt', op: 'read', expect: { outside: o('secret.txt') } },
      { name: 'deep ../ escape', path: p('src/../../../../../../etc/passwd'), op: 'read', expect: { outside: '/etc/passwd' } },
      { name: '../ escape through an inside folder link', path: p('srclink/../../outside/secret.txt'), op: 'read', expect: { outside: o('secret.txt') } },
      { name: 'path with a NUL byte', path: `${p('README.md')}\u0000.txt`, op: 'read', expect: { refused: /NUL byte/ } },
      { name: 'path with a NUL byte, written', path: `${p('x')}\u0000${o('secret.txt')}`, op: 'write', expect: { refused: /NUL byte/ } },
      { name: 'very long path (5,000 characters)', path: p('a/'.repeat(2500)), op: 'read', expect: { refused: /paths longer than 4096 are refused/ } },
      { name: 'very long name (300 bytes)', path: p('n'.repeat(300)), op: 'write', expect: { refused: /limited to 255 bytes/ } },
      { name: 'FIFO, read', path: p('fifo'), op: 'read', expect: notRegular('fifo') },
      { name: 'FIFO, written', path: p('fifo'), op: 'write', expect: notRegular('fifo') },
      { name: 'UNIX socket, read', path: p('sock'), op: 'read', expect: notRegular('socket') },
      { name: 'UNIX socket, written', path: p('sock'), op: 'write', expect: notRegular('socket') },
      { name: 'folder, read as a file', path: p('src'), op: 'read', expect: { refused: /it is a folder/ } },
      { name: 'file used as a folder', path: p('README.md/x'), op: 'read', expect: { refused: /is a file, not a folder/ } },
      { name: '`..env` inside, read', path: p('..env'), op: 'read', expect: 'inside' },
      { name: '`..env` inside, written', path: p('..env'), op: 'write', expect: 'inside' },
      { name: '`..hidden/` folder inside, read', path: p('..hidden/file.txt'), op: 'read', expect: 'inside' },
      { name: 'symlink chain staying inside, read', path: p('inchain1'), op: 'read', expect: 'inside' },
      { name: 'self link loop-back, read', path: p('self/self/self/README.md'), op: 'read', expect: 'inside' },
      { name: 'relative path inside', path: 'src/a.ts', op: 'read', expect: 'inside' },
    ];
    if (this.device) {
      list.push({ name: 'character device, read', path: this.device, op: 'read', expect: notRegular('character device') });
      list.push({ name: 'character device, written', path: this.device, op: 'write', expect: notRegular('character device') });
    }
    return list;
  }

  /** A fingerprint of everything outside the workspace in the temp folder (names, types, modes, contents). */
  async outsideSnapshot(): Promise<string> {
    const hash = createHash('sha256');
    const walk = async (dir: string): Promise<void> => {
      for (const name of (await fs.readdir(dir)).sort()) {
        const full = path.join(dir, name);
        if (full === this.ws) continue;
        const stat = await fs.lstat(full);
        hash.update(`${path.relative(this.base, full)}|${stat.mode}|${stat.size}|${stat.mtimeMs}\n`);
        if (stat.isDirectory()) await walk(full);
        else if (stat.isFile()) hash.update(await fs.readFile(full));
      }
    };
    await walk(this.base);
    return hash.digest('hex');
  }

  async dispose(): Promise<void> {
    // Release anything that opened the FIFO for reading (old code would block on it), then remove everything.
    await fs.open(this.p('fifo'), constants.O_WRONLY | constants.O_NONBLOCK).then((h) => h.close(), () => undefined);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    await fs.rm(this.base, { recursive: true, force: true });
  }
}
