// How many tasks run at once: per session and per window, foreground and background, counted from before the
// person is asked (a held slot), refused with what the agent can do, and given back by every start that fails.

import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isVigilError } from '../../../src/extension/core/common/errors';
import { DEFAULT_TASK_CAPS, TASK_CAP_RANGE, type TaskCaps } from '../../../src/extension/core/tasks/startSlots';
import { registriesPerTest } from '../../fakes/taskHarness';

const SLEEP = 'exec sleep 600';

describe('task caps', function () {
  this.timeout(30_000);
  const registries = registriesPerTest('vigil-caps-');

  async function refusal(promise: Promise<unknown>): Promise<string> {
    let message = '';
    await assert.rejects(promise, (e) => {
      message = (e as Error).message;
      return isVigilError(e, 'TASK_LIMIT');
    });
    return message;
  }

  it('refuses a session its next command at the per-session cap, foreground and background alike, saying what to do', async () => {
    const o = await registries.open({ caps: () => ({ perSession: 2, perWindow: 10 }) });
    const fg = (await o.registry.create({ sessionId: 's1', command: SLEEP })).terminalId;
    const bg = (await o.registry.create({ sessionId: 's1', command: SLEEP, background: true })).terminalId;
    const message = await refusal(o.registry.create({ sessionId: 's1', command: 'echo never', background: true }));
    assert.match(message, /^Not started: this session already has 2 commands running \((t-[0-9a-f]{8}), (t-[0-9a-f]{8})\)/);
    assert.ok(message.includes(fg) && message.includes(bg), message);
    assert.match(message, /at most 2 at once per session \(vigil\.tasks\.maxRunningPerSession\)/);
    assert.match(message, /Wait until one ends .* or kill one you no longer need, then start this command again\./);
    await refusal(o.registry.create({ sessionId: 's1', command: 'echo never' }));
    assert.equal(o.registry.list({ sessionId: 's1' }).length, 2, 'nothing was started or recorded');
    // Another session is not held back by this one's cap.
    await o.registry.create({ sessionId: 's2', command: SLEEP, background: true });
    // A killed task, and a released foreground one, give their room back.
    await o.registry.kill(bg);
    await o.registry.create({ sessionId: 's1', command: SLEEP, background: true });
    await o.registry.release(fg);
    await o.registry.create({ sessionId: 's1', command: SLEEP });
    await refusal(o.registry.create({ sessionId: 's1', command: 'echo never' }));
  });

  it('refuses every session at the per-window cap, naming only the asking session\'s tasks', async () => {
    const o = await registries.open({ caps: () => ({ perSession: 5, perWindow: 2 }) });
    const a = (await o.registry.create({ sessionId: 'sa', command: SLEEP, background: true })).terminalId;
    const b = (await o.registry.create({ sessionId: 'sb', command: SLEEP, background: true })).terminalId;
    const other = await refusal(o.registry.create({ sessionId: 'sc', command: 'echo never' }));
    assert.match(other, /2 commands are running or starting in this window, none of them this session's/);
    assert.match(other, /at most 2 at once per window \(vigil\.tasks\.maxRunningPerWindow\)/);
    assert.ok(!other.includes(a) && !other.includes(b), `another session's task ids stay hidden: ${other}`);
    const own = await refusal(o.registry.create({ sessionId: 'sa', command: 'echo never' }));
    assert.match(own, new RegExp(`1 of them this session's \\(${a}\\)`));
    assert.ok(!own.includes(b), own);
  });

  it('a burst of concurrent starts runs exactly as many as the cap allows', async () => {
    const o = await registries.open({ caps: () => ({ perSession: 3, perWindow: 64 }) });
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => o.registry.create({ sessionId: 's', command: SLEEP, background: true })));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
    for (const r of results) if (r.status === 'rejected') assert.ok(isVigilError(r.reason, 'TASK_LIMIT'), String(r.reason));
    assert.equal(o.registry.list({ sessionId: 's' }).length, 3);
  });

  it('a slot taken before an approval counts until its start runs, and only that session\'s start uses it', async () => {
    const o = await registries.open({ caps: () => ({ perSession: 1, perWindow: 64 }) });
    const slot = o.registry.reserveStart('s');
    assert.match(await refusal(o.registry.create({ sessionId: 's', command: 'echo never' })), /already has 1 being started/);
    assert.throws(() => o.registry.reserveStart('s'), (e) => isVigilError(e, 'TASK_LIMIT'));
    // Another session's slot is no room for this one: the start takes room of its own, and there is none.
    const others = o.registry.reserveStart('s2');
    await refusal(o.registry.create({ sessionId: 's', command: 'echo never' }, others));
    others.release();
    await o.registry.create({ sessionId: 's', command: SLEEP }, slot);
    slot.release(); // after its start: nothing more to give back
    await refusal(o.registry.create({ sessionId: 's', command: 'echo never' }));
  });

  it('a slot given back, or a start that fails, leaves the room free', async () => {
    const o = await registries.open({ caps: () => ({ perSession: 1, perWindow: 64 }) });
    o.registry.reserveStart('s').release();
    await assert.rejects(o.registry.create({ sessionId: 's', command: 'true', cwd: '/definitely/not/here' }), (e) => isVigilError(e, 'INVALID_INPUT'));
    await o.registry.create({ sessionId: 's', command: SLEEP });
  });

  it('reads the caps at every start, and a broken cap is its default rather than none', async () => {
    const caps: TaskCaps = { perSession: 1, perWindow: 64 };
    const o = await registries.open({ caps: () => caps });
    await o.registry.create({ sessionId: 's', command: SLEEP });
    await refusal(o.registry.create({ sessionId: 's', command: 'echo never' }));
    caps.perSession = 2;
    await o.registry.create({ sessionId: 's', command: SLEEP });
    caps.perSession = Number.NaN;
    caps.perWindow = 2;
    await refusal(o.registry.create({ sessionId: 's', command: 'echo never' }));
  });

  it('uses the defaults and ranges the settings declare', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default: number; minimum: number; maximum: number }> } };
    };
    const properties = pkg.contributes.configuration.properties;
    for (const [key, setting] of [['perSession', 'vigil.tasks.maxRunningPerSession'], ['perWindow', 'vigil.tasks.maxRunningPerWindow']] as const) {
      assert.deepEqual(
        { default: properties[setting].default, minimum: properties[setting].minimum, maximum: properties[setting].maximum },
        { default: DEFAULT_TASK_CAPS[key], minimum: TASK_CAP_RANGE[key].min, maximum: TASK_CAP_RANGE[key].max },
        setting,
      );
    }
  });
});
