// Knobs an agent sets on terminal/create, through the real registry: output limit clamped, notify
// patterns on RE2 (a hostile one refused), and stored records of earlier versions degraded, not fatal.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { OUTPUT_BYTE_LIMIT_MAX } from '../../../src/extension/core/tasks/outputLimit';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { taskRecordSchema, type TaskRecord } from '../../../src/extension/core/tasks/taskTypes';
import { makeFifo, openGate, openRegistry, type OpenedRegistry } from '../../fakes/taskHarness';
import { tempStorageRoot } from '../../fakes/wakeupHarness';

function recordingLogger(lines: string[]): Logger {
  const push = (level: string) => (m: string | Error, ...a: unknown[]) => lines.push(`${level} ${String(m)} ${a.map(String).join(' ')}`);
  return { trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') };
}

describe('agent-chosen task knobs', function () {
  this.timeout(30_000);
  let root: string;
  /** vigil.tasks.outputByteLimit's default, which the registry uses when it is given none. */
  const settingDefault = 1024 * 1024;
  const opened: OpenedRegistry[] = [];

  beforeEach(async () => {
    root = await tempStorageRoot('vigil-knobs-');
  });

  afterEach(async () => {
    for (const o of opened.splice(0)) await o.registry.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  async function open(logs: string[]): Promise<OpenedRegistry> {
    const o = await openRegistry(root, { logger: recordingLogger(logs) });
    opened.push(o);
    return o;
  }

  async function storedRecord(id: string): Promise<TaskRecord> {
    return taskRecordSchema.parse(JSON.parse(await fs.readFile(path.join(root, 'tasks', `${id}.json`), 'utf8')));
  }

  it('outputByteLimit 1e12 is stored as the setting (an agent cannot raise it), and the log says what was asked', async () => {
    const logs: string[] = [];
    const o = await open(logs);
    const { terminalId } = await o.registry.create({ sessionId: 's', command: 'echo hi', outputByteLimit: 1e12 });
    await o.registry.waitForExit(terminalId);
    assert.equal((await storedRecord(terminalId)).outputByteLimit, settingDefault);
    assert.ok(logs.some((l) => l.startsWith('warn') && l.includes(terminalId) && l.includes('outputByteLimit 1000000000000 is outside')), logs.join('\n'));
  });

  it('a hostile or unsupported notify pattern is refused up front with what is allowed', async () => {
    const o = await open([]);
    for (const pattern of ['(a)\\1', '(?<=x)y', 'x'.repeat(1_001)]) {
      await assert.rejects(
        o.registry.create({ sessionId: 's', command: 'true', background: true, notify: { pattern } }),
        (e: unknown) => isVigilError(e, 'INVALID_INPUT') && /RE2 regular expressions/.test(e.message),
      );
    }
    assert.deepEqual(o.registry.list(), [], 'nothing was started');
  });

  it('re-attaches a task whose stored pattern RE2 rejects: one log line, and it still notifies on exit', async () => {
    const logs: string[] = [];
    const first = await open(logs);
    const gate = makeFifo(path.join(root, 'workspace'));
    // A background task that waits on a FIFO until the test lets it end.
    const { terminalId } = await first.registry.create({
      sessionId: 's',
      command: `echo started; read x < ${JSON.stringify(gate)}; exit 4`,
      background: true,
      notify: { pattern: 'never-printed', onExit: false },
    });
    await first.registry.close();
    // As an earlier version stored it: a JavaScript-only pattern, and no exit notification asked for.
    const record = await storedRecord(terminalId);
    await fs.writeFile(path.join(root, 'tasks', `${terminalId}.json`), JSON.stringify({ ...record, notify: { pattern: '(start)ed\\1', onExit: false } }));

    const second = await open(logs);
    await second.registry.whenReattached();
    assert.ok(logs.some((l) => l.startsWith('warn') && l.includes(terminalId) && l.includes('notifies on exit only')), logs.join('\n'));
    await openGate(gate);
    assert.deepEqual(await second.registry.waitForExit(terminalId), { exitCode: 4, signal: null });
    await new Promise<void>((resolve) => {
      const off = second.registry.subscribe((e) => {
        if (e.type === 'completion' && e.completion.kind === 'exit') {
          off();
          resolve();
        }
      });
      if (second.completions.some((c) => c.kind === 'exit')) resolve();
    });
    assert.deepEqual(second.completions.map((c) => [c.taskId, c.kind, c.exitCode]), [[terminalId, 'exit', 4]]);
  });

  it('a stored record asking for a huge buffer is loaded with the maximum', async () => {
    const logs: string[] = [];
    await fs.mkdir(path.join(root, 'tasks'), { recursive: true });
    const old: TaskRecord = {
      v: 1, id: 't-0ld0ld00', sessionId: 's', command: 'x', cwd: root, pid: null, background: true, notify: {}, outputByteLimit: 1e12,
      startedAt: 1, endedAt: 2, exitCode: 0, signal: null, status: 'exited', patternMatchedAt: null, killRequestedAt: null,
    };
    await fs.writeFile(path.join(root, 'tasks', `${old.id}.json`), JSON.stringify(old));
    const o = await open(logs);
    assert.equal(o.registry.list()[0]?.outputByteLimit, OUTPUT_BYTE_LIMIT_MAX);
    assert.ok(logs.some((l) => l.includes('asks for an output buffer of 1000000000000 bytes')), logs.join('\n'));
  });
});
