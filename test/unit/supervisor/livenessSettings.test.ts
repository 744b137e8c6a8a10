// The liveness settings resolver: defaults, validation, one warning per bad key, never throws.

import * as assert from 'node:assert/strict';
import { LivenessSettingsResolver } from '../../../src/extension/core/supervisor/livenessSettings';
import { recordingLogger, type LogRecord } from '../supervisor/harness';

function resolver() {
  const logs: LogRecord[] = [];
  return { r: new LivenessSettingsResolver(recordingLogger(logs)), logs };
}

describe('liveness settings', () => {
  it('I1 missing values take the defaults (300 s, 1800 s, 10 s)', () => {
    const { r, logs } = resolver();
    for (const raw of [undefined, null, {}]) {
      assert.deepEqual(r.resolve(raw), { enabled: true, timeoutMs: 300_000, toolTimeoutMs: 1_800_000, graceMs: 10_000 });
    }
    assert.equal(logs.length, 0);
  });

  it('I1 valid values are used, fractions allowed', () => {
    const { r } = resolver();
    assert.deepEqual(r.resolve({ timeoutSeconds: 0.3, toolTimeoutSeconds: 60, graceSeconds: 0 }), {
      enabled: true,
      timeoutMs: 300,
      toolTimeoutMs: 60_000,
      graceMs: 0,
    });
  });

  it('I1 timeoutSeconds ≤ 0 disables the watchdog', () => {
    const { r } = resolver();
    assert.equal(r.resolve({ timeoutSeconds: 0 }).enabled, false);
    assert.equal(r.resolve({ timeoutSeconds: -5 }).enabled, false);
  });

  it('I1 NaN, ±Infinity, non-numbers and unknown keys fall back with one warning per key, never throwing', () => {
    const { r, logs } = resolver();
    const bad = { timeoutSeconds: NaN, toolTimeoutSeconds: Infinity, graceSeconds: '10', pollSeconds: 1 };
    const first = r.resolve(bad);
    assert.deepEqual(first, { enabled: true, timeoutMs: 300_000, toolTimeoutMs: 1_800_000, graceMs: 10_000 });
    r.resolve(bad);
    r.resolve({ timeoutSeconds: -Infinity, graceSeconds: { x: 1 } });
    const warnings = logs.filter((l) => l.level === 'warn').map((l) => l.message);
    assert.equal(warnings.length, 4, warnings.join('\n'));
    for (const key of ['timeoutSeconds', 'toolTimeoutSeconds', 'graceSeconds', 'pollSeconds']) {
      assert.equal(warnings.filter((w) => w.includes(`vigil.turnLiveness.${key}`)).length, 1, key);
    }
  });

  it('I1 a section that is not an object, or negative grace / non-positive tool bound, falls back', () => {
    const { r, logs } = resolver();
    assert.equal(r.resolve('fast').timeoutMs, 300_000);
    assert.equal(r.resolve([1, 2]).timeoutMs, 300_000);
    const s = r.resolve({ graceSeconds: -1, toolTimeoutSeconds: 0 });
    assert.equal(s.graceMs, 10_000);
    assert.equal(s.toolTimeoutMs, 1_800_000);
    assert.ok(logs.length >= 3);
  });

  it('I1 a hostile value whose toJSON throws still resolves: the resolver never throws', () => {
    const { r } = resolver();
    const hostile = { timeoutSeconds: { toJSON() { throw new Error('boom'); } } };
    assert.equal(r.resolve(hostile).timeoutMs, 300_000);
  });
});
