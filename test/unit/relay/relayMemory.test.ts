// What keeps the relay's own memory small (one relay per live agent, bar 10 MB PSS, measured by
// bench/relay.bench.ts): its V8 flags reach the process and hold the young generation at 2 MB, and one full
// GC runs once the relay has been quiet for a moment, never while messages pass.

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { IdleGc, loadGc, type IdleGcClock } from '../../../src/extension/core/relay/relayIdleGc';
import { relayNodeFlags } from '../../../src/extension/core/relay/relayStart';
import { startWorld, stopWorld, type World } from './relayWorld';

/** A clock whose time and timers move only when the test says. */
class ManualClock implements IdleGcClock {
  t = 0;
  timers: { at: number; fn: () => void }[] = [];
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.timers.push({ at: this.t + ms, fn });
    return undefined;
  }
  advance(ms: number): void {
    this.t += ms;
    for (let due = this.timers.find((x) => x.at <= this.t); due; due = this.timers.find((x) => x.at <= this.t)) {
      this.timers.splice(this.timers.indexOf(due), 1);
      due.fn();
    }
  }
}

describe('relay memory', function () {
  this.timeout(30_000);
  let world: World | undefined;
  afterEach(async () => {
    if (world) await stopWorld(world);
    world = undefined;
  });

  it('starts the relay process with its V8 flags before its script', async function () {
    if (process.platform !== 'linux') this.skip();
    world = await startWorld();
    const argv = readFileSync(`/proc/${world.relayPid}/cmdline`, 'utf8').split('\0');
    const script = argv.findIndex((a) => a.endsWith('agentRelay.js'));
    assert.ok(script > 0, argv.join(' '));
    assert.deepEqual(argv.slice(1, script), [...relayNodeFlags]);
    assert.ok(relayNodeFlags.includes('--max-semi-space-size=1'), 'the young generation is bounded');
  });

  it('keeps the young generation of a process with those flags at 2 MB after a burst of garbage', () => {
    const probe = `let keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 1000) keep = []; }
      process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))`;
    const bytes = Number(execFileSync(process.execPath, [...relayNodeFlags, '-e', probe], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }));
    assert.ok(bytes <= 2 * 1024 * 1024, `new space ${bytes} bytes`);
  });

  it('collects once after the relay has been quiet, not while messages pass', () => {
    const clock = new ManualClock();
    let collected = 0;
    const idle = new IdleGc(() => (collected += 1), 1_500, clock);
    idle.activity();
    for (let i = 0; i < 10; i += 1) {
      clock.advance(1_000);
      idle.activity();
    }
    assert.equal(collected, 0, 'a message every second keeps the relay busy');
    assert.ok(clock.timers.length <= 1, 'one timer at a time, whatever the traffic');
    clock.advance(1_499);
    assert.equal(collected, 0);
    clock.advance(1);
    assert.equal(collected, 1);
    clock.advance(60_000);
    assert.equal(collected, 1, 'once per quiet spell');
    idle.activity();
    clock.advance(1_500);
    assert.equal(collected, 2, 'and again after the next traffic');
  });

  it("gets V8's gc in this runtime", () => {
    assert.equal(typeof loadGc(), 'function');
  });
});
