// The agent-chosen output buffer size is kept inside the setting's range.

import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { OUTPUT_BYTE_LIMIT_MAX, OUTPUT_BYTE_LIMIT_MIN, clampOutputByteLimit } from '../../../src/extension/core/tasks/outputLimit';

describe('output byte limit', () => {
  it('keeps what an agent asks inside the setting: less is allowed, more is cut to the setting, and says so', () => {
    assert.deepEqual(clampOutputByteLimit(1e12, 1_048_576).limit, 1_048_576);
    assert.match(clampOutputByteLimit(1e12, 1_048_576).note ?? '', /outputByteLimit 1000000000000 is outside 1024–1048576 bytes \(vigil.tasks.outputByteLimit\); using 1048576/);
    assert.deepEqual(clampOutputByteLimit(8 * 1_048_576, 1_048_576).limit, 1_048_576, 'an agent cannot raise the person’s limit');
    assert.deepEqual(clampOutputByteLimit(8 * 1_048_576, 16 * 1_048_576), { limit: 8 * 1_048_576 });
    assert.deepEqual(clampOutputByteLimit(10, 1_048_576).limit, OUTPUT_BYTE_LIMIT_MIN);
    assert.deepEqual(clampOutputByteLimit(4096.7, 1_048_576), { limit: 4096, note: 'outputByteLimit 4096.7 is outside 1024–1048576 bytes (vigil.tasks.outputByteLimit); using 4096' });
    assert.deepEqual(clampOutputByteLimit(65_536, 1_048_576), { limit: 65_536 });
  });

  it('falls back to the setting for no value or a nonsense one', () => {
    assert.deepEqual(clampOutputByteLimit(undefined, 1_048_576), { limit: 1_048_576 });
    assert.deepEqual(clampOutputByteLimit(null, 1_048_576), { limit: 1_048_576 });
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const { limit, note } = clampOutputByteLimit(bad, 1_048_576);
      assert.equal(limit, 1_048_576);
      assert.match(note ?? '', /not a positive number/);
    }
    assert.equal(clampOutputByteLimit(undefined, 1e15).limit, OUTPUT_BYTE_LIMIT_MAX, 'the fallback is bounded too');
  });

  it('uses the same range as the vigil.tasks.outputByteLimit setting', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: Array<{ properties: Record<string, { minimum: number; maximum: number }> }> | { properties: Record<string, { minimum: number; maximum: number }> } };
    };
    const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const setting = sections.map((s) => s.properties['vigil.tasks.outputByteLimit']).find(Boolean);
    assert.ok(setting);
    assert.equal(setting.minimum, OUTPUT_BYTE_LIMIT_MIN);
    assert.equal(setting.maximum, OUTPUT_BYTE_LIMIT_MAX);
  });
});
