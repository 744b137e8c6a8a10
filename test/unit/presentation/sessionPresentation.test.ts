// Session list rows: status from live phase or stored state, icons, descriptions, context values, title validation.

import * as assert from 'node:assert';
import type { SessionMeta } from '../../../src/extension/core/store/sessionStore';
import { folderRow, orderByFolder, presentSession, rowStatus, validateSessionTitle } from '../../../src/extension/presentation/sessionPresentation';

const now = Date.UTC(2026, 10, 30, 12, 0, 0);
const meta = (patch: Partial<SessionMeta> = {}): SessionMeta => ({ id: 's1', title: 'Fix the build', createdAt: now - 3_600_000, updatedAt: now - 5 * 60_000, state: 'idle', ...patch });

describe('session list presentation', () => {
  it('an idle session shows its last activity only, and no background count when none runs', () => {
    const row = presentSession(meta(), undefined, 0, now);
    assert.strictEqual(row.label, 'Fix the build');
    assert.strictEqual(row.description, '5 min ago');
    assert.strictEqual(row.contextValue, 'session.idle');
    assert.strictEqual(row.icon, 'comment-discussion');
    assert.strictEqual(row.turnRunning, false);
    assert.strictEqual(row.accessibleDescription, 'idle · 5 min ago', 'a screen reader hears the state of an idle row too');
  });

  it('the state the view shows wins over the stored one, idle included; without it the stored state speaks', () => {
    assert.strictEqual(rowStatus({ state: 'aborted' }, 'idle'), 'idle', 'a resumed turn that finished: the record may not be read again yet');
    assert.strictEqual(rowStatus({ state: 'aborted' }, undefined), 'aborted');
    assert.strictEqual(rowStatus({ state: 'interrupted' }, 'running'), 'running');
  });

  it('every running phase has context session.running and shows the running tasks', () => {
    for (const phase of ['running', 'quiet', 'stalled', 'awaitingApproval'] as const) {
      const row = presentSession(meta(), phase, 2, now);
      assert.strictEqual(row.contextValue, 'session.running', phase);
      assert.match(row.description, / · 2 bg$/);
      assert.strictEqual(row.turnRunning, true);
      assert.ok(row.iconColor, `${phase} is coloured`);
    }
    assert.strictEqual(presentSession(meta(), 'stalled', 0, now).icon, 'warning');
    assert.match(presentSession(meta(), 'awaitingApproval', 0, now).description, /^needs your approval · /);
    assert.match(presentSession(meta(), 'quiet', 0, now).description, /^quiet · /);
    assert.match(presentSession(meta(), 'stalled', 0, now).description, /^stalled · /);
  });

  it('aborted and interrupted read as one state, stopped: resumable, red, and why in the tooltip', () => {
    const aborted = presentSession(meta({ state: 'aborted', stateReason: 'older reason' }), undefined, 0, now);
    assert.strictEqual(aborted.contextValue, 'session.aborted.resumable');
    assert.strictEqual(aborted.iconColor, 'list.errorForeground');
    assert.match(aborted.tooltip, /^Status: Stopped\nWhy: older reason$/m);
    assert.match(aborted.tooltip, /Resume/);
    assert.match(presentSession(meta({ state: 'aborted', stateReason: 'Stopped: no progress for 300 s' }), undefined, 0, now).tooltip, /^Status: Stopped: no progress for 300 s$/m, 'a reason in the state’s words is the status line');
    const interrupted = presentSession(meta({ state: 'interrupted' }), undefined, 1, now);
    assert.strictEqual(interrupted.contextValue, 'session.interrupted.resumable');
    assert.strictEqual(interrupted.description, 'stopped · 5 min ago · 1 bg');
    assert.strictEqual(interrupted.icon, aborted.icon, 'one state, one icon');
  });

  it('every context value matches the menus’ /^session/', () => {
    for (const phase of [undefined, 'idle', 'running', 'quiet', 'stalled', 'awaitingApproval', 'aborted', 'interrupted'] as const) {
      assert.match(presentSession(meta(), phase, 0, now).contextValue, /^session/);
    }
  });

  it('a blank title still gives a readable label', () => {
    assert.strictEqual(presentSession(meta({ title: '   ' }), undefined, 0, now).label, 'Untitled session');
  });

  it('validates titles: non-empty, at most 200 characters', () => {
    assert.match(validateSessionTitle('  ') ?? '', /empty/);
    assert.strictEqual(validateSessionTitle('a'.repeat(200)), undefined);
    assert.match(validateSessionTitle('a'.repeat(201)) ?? '', /at most 200 characters \(this one has 201\)/);
    assert.strictEqual(validateSessionTitle(' ok '), undefined);
  });

  it('rows of this window folders come first; others are marked with their folder and why they do not run here', () => {
    const here = folderRow({ kind: 'home', folder: '/work/alpha' });
    const foreign = folderRow({ kind: 'foreign', folder: '/work/beta' });
    const missing = folderRow({ kind: 'missing', folder: '/work/gone' });
    const damaged = folderRow({ kind: 'damaged', reason: 'it is not an absolute path' });
    assert.deepStrictEqual([here.here, folderRow({ kind: 'adopt', folder: '/w' }).here, folderRow({ kind: 'folderless' }).here], [true, true, true]);
    assert.strictEqual(here.label, undefined, 'a row of this window carries no folder label');
    assert.strictEqual(foreign.here, false);
    assert.strictEqual(foreign.label, 'beta');
    assert.match(foreign.detail ?? '', /\/work\/beta, not open in this window\. Open that folder to continue/);
    assert.strictEqual(missing.label, 'gone (missing)');
    assert.strictEqual(damaged.label, 'folder record damaged');
    const rows = [
      { id: 'n1', f: foreign },
      { id: 'n2', f: here },
      { id: 'n3', f: damaged },
      { id: 'n4', f: here },
      { id: 'n5', f: missing },
    ];
    assert.deepStrictEqual(orderByFolder(rows, (r) => r.f).map((r) => r.id), ['n2', 'n4', 'n1', 'n3', 'n5'], 'each group keeps its (newest-first) order');
  });
});
