// Vigil's task wrapper where there is no /usr/bin/perl (Windows): a small Node program, bundled as
// dist/taskWrapper.js, that runs one background command, keeps its output in a bounded log and records
// how it ended. taskWrapper.pl does the same elsewhere in a tenth of the memory; wrapperFiles.ts says
// which one runs.
//
// Run as `node taskWrapper.js <config json>` (a WrapperConfig) in its own process group. It outlives the
// extension host, so a reloaded window can re-attach: it appends the command's output to `log`
// (renaming it to `log.1` so the two files never hold more than `2 * half` bytes) and, when the command
// exits, atomically and durably (fsync of the log, the record and its folder) writes the exit record
// (exitRecord.ts) to `exit`, after the same text went to `<exit>.notice` unsynced for the host to act on
// at once (removed once the record is durable). It counts SIGTERM/SIGINT/SIGHUP instead of dying of them,
// so a kill of the group still gets the command's end recorded; SIGKILL of the group ends it too.
//
// It imports nothing but Node's own modules (and types): it runs as a file of its own, never inside the host.

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { WrittenExitRecord } from './exitRecord';
import type { WrapperConfig } from './wrapperFiles';

const config = JSON.parse(process.argv[2] ?? '{}') as WrapperConfig;
const env: NodeJS.ProcessEnv = { ...process.env };
if (!config.keepElectronRunAsNode) delete env.ELECTRON_RUN_AS_NODE;

let fd = fs.openSync(config.log, 'a');
let size = fs.fstatSync(fd).size;
let dropped = 0;
let signals = 0;
let done = false;

function write(chunk: Buffer): void {
  try {
    if (size > 0 && size + chunk.length > config.half) {
      fs.closeSync(fd);
      fs.renameSync(config.log, `${config.log}.1`);
      fd = fs.openSync(config.log, 'a');
      size = 0;
    }
    fs.writeSync(fd, chunk);
    size += chunk.length;
  } catch {
    // Disk full or log removed: drop this chunk but keep draining, so the command never blocks on its pipe.
    dropped += chunk.length;
  }
}

function syncDir(dir: string): void {
  try {
    const d = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(d);
    } finally {
      fs.closeSync(d);
    }
  } catch {
    // Some file systems refuse a directory fsync; the rename is still atomic there.
  }
}

function finish(exitCode: number | null, signal: NodeJS.Signals | null): void {
  if (done) return;
  done = true;
  const record: WrittenExitRecord = { exitCode, signal, endedAt: Date.now(), droppedBytes: dropped, signalsSeen: signals };
  const body = JSON.stringify(record);
  // The notice first (the record's text, renamed into place, not synced): the host stores the completion
  // durably in its own outbox while the fsyncs below run. Removed once the record is durable.
  const notice = `${config.exit}.notice`;
  try {
    fs.writeFileSync(`${notice}.tmp`, body);
    fs.renameSync(`${notice}.tmp`, notice);
  } catch {
    // Only a head start: the record below is what counts.
  }
  // The log first, then the record, each fsynced: a record that says "ended" never outlives the output it ended with.
  try {
    fs.fsyncSync(fd);
  } catch {
    // Log removed or disk gone: the record still matters.
  }
  const tmp = `${config.exit}.tmp`;
  try {
    const efd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(efd, body);
      fs.fsyncSync(efd);
    } finally {
      fs.closeSync(efd);
    }
    fs.renameSync(tmp, config.exit);
    syncDir(path.dirname(config.exit));
    fs.rmSync(notice, { force: true });
  } catch {
    // Disk full: no record. The registry calls the task lost once this wrapper is gone.
    try {
      fs.unlinkSync(tmp);
    } catch {
      // Nothing to clean.
    }
  }
}

function failToStart(error: Error): void {
  write(Buffer.from(`vigil: could not start the command: ${error.message}\n`));
  finish(127, null);
  process.exit(0);
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    signals += 1;
  });
}

let child: cp.ChildProcessByStdio<null, Readable, Readable> | undefined;
try {
  child = cp.spawn(config.file, config.args, { cwd: config.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
} catch (error) {
  failToStart(error as Error);
}
if (child) {
  child.stdout.on('data', write);
  child.stderr.on('data', write);
  child.on('error', failToStart);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  // Processes the command left behind may hold its pipes open: their output is read for 250 ms at most.
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    setTimeout(() => finish(code, signal), 250).unref();
  });
  child.on('close', (code, signal) => finish(exited ? exited.code : code, exited ? exited.signal : signal));
}
