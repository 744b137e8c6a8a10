// The exit-status wrapper: a small Node program that runs the command, writes its bounded log and records its exit.

/**
 * Runs as `node -e WRAPPER_SOURCE <config json>` in its own process group. It outlives the extension
 * host, so a reloaded window can re-attach: it appends the command's output to `log` (rotating to
 * `log.1` so the two files never hold more than `2 * half` bytes) and, when the command exits,
 * atomically and durably (fsync of the log, the record and its folder) writes `{exitCode, signal, endedAt}` to `exit`. It ignores SIGTERM/SIGINT/SIGHUP so that
 * a kill of the group still gets the command's end recorded; SIGKILL of the group ends it too.
 */
export interface WrapperConfig {
  taskId: string;
  file: string;
  args: string[];
  cwd: string;
  log: string;
  exit: string;
  half: number;
  keepElectronRunAsNode: boolean;
}

export const WRAPPER_SOURCE = `'use strict';
const fs = require('fs');
const cp = require('child_process');
const c = JSON.parse(process.argv[1]);
const env = Object.assign({}, process.env);
if (!c.keepElectronRunAsNode) delete env.ELECTRON_RUN_AS_NODE;
let fd = fs.openSync(c.log, 'a');
let size = fs.fstatSync(fd).size;
let dropped = 0;
let signals = 0;
function write(b) {
  try {
    if (size > 0 && size + b.length > c.half) {
      fs.closeSync(fd);
      fs.renameSync(c.log, c.log + '.1');
      fd = fs.openSync(c.log, 'a');
      size = 0;
    }
    fs.writeSync(fd, b);
    size += b.length;
  } catch (e) {
    // Disk full or log removed: drop this chunk but keep draining, so the command never blocks on its pipe.
    dropped += b.length;
  }
}
let done = false;
function syncDir(dir) {
  try {
    const d = fs.openSync(dir, 'r');
    try { fs.fsyncSync(d); } finally { fs.closeSync(d); }
  } catch (e) {
    // Some file systems refuse a directory fsync; the rename is still atomic there.
  }
}
function finish(code, signal) {
  if (done) return;
  done = true;
  // The log first, then the record, each fsynced: a record that says "ended" never outlives the output it ended with.
  try { fs.fsyncSync(fd); } catch (e) { /* log removed or disk gone: the record still matters */ }
  const tmp = c.exit + '.tmp';
  const body = JSON.stringify({ exitCode: code, signal: signal, endedAt: Date.now(), droppedBytes: dropped, signalsSeen: signals });
  try {
    const efd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(efd, body);
      fs.fsyncSync(efd);
    } finally {
      fs.closeSync(efd);
    }
    fs.renameSync(tmp, c.exit);
    syncDir(require('path').dirname(c.exit));
  } catch (e) {
    // Disk full: no record. The registry calls the task lost once this wrapper is gone.
    try { fs.unlinkSync(tmp); } catch (e2) { /* nothing to clean */ }
  }
}
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, function () { signals += 1; });
let child;
try {
  child = cp.spawn(c.file, c.args, { cwd: c.cwd, env: env, stdio: ['ignore', 'pipe', 'pipe'] });
} catch (e) {
  write(Buffer.from('vigil: could not start the command: ' + e.message + '\\n'));
  finish(127, null);
  process.exit(0);
}
child.stdout.on('data', write);
child.stderr.on('data', write);
child.on('error', function (e) {
  write(Buffer.from('vigil: could not start the command: ' + e.message + '\\n'));
  finish(127, null);
  process.exit(0);
});
let exited = null;
child.on('exit', function (code, sig) {
  exited = { code: code, sig: sig };
  setTimeout(function () { finish(code, sig); }, 250).unref();
});
child.on('close', function (code, sig) {
  finish(exited ? exited.code : code, exited ? exited.sig : sig);
});
`;
