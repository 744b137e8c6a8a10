// The composer's `/` completions: what matches, keyboard movement, Escape, and what choosing inserts.

import * as assert from 'node:assert/strict';
import type { AgentCommandView } from '../../../src/shared/agentState';
import { CommandCompletions, insertCommand, matchCommands, maxShown, pendingHint, slashQuery } from '../../../src/webview/commandCompletions';

const commands: AgentCommandView[] = [
  { name: 'review', description: 'Review the branch' },
  { name: 'explain', description: 'Explain a symbol', hint: 'file or symbol' },
  { name: 'compact', description: 'Free context' },
  { name: 'preview', description: 'Preview a change' },
];

describe('composer / completions', () => {
  it('only a first word starting with / that the caret is in is a command query', () => {
    assert.equal(slashQuery('/', 1), '');
    assert.equal(slashQuery('/rev', 4), 'rev');
    assert.equal(slashQuery('/rev', 2), 'r', 'the part before the caret');
    assert.equal(slashQuery('/review now', 11), undefined, 'past the command word');
    assert.equal(slashQuery('hi /rev', 7), undefined, 'not at the start');
    assert.equal(slashQuery('/rev', 0), undefined);
    assert.equal(slashQuery('', 0), undefined);
  });

  it('lists prefix matches first, then names containing the query, case-insensitively, capped', () => {
    assert.deepEqual(matchCommands(commands, 'REV').map((c) => c.name), ['review', 'preview']);
    assert.deepEqual(matchCommands(commands, '').map((c) => c.name), ['review', 'explain', 'compact', 'preview']);
    assert.deepEqual(matchCommands(commands, 'zzz'), []);
    const many = Array.from({ length: 500 }, (_, i) => ({ name: `c${i}`, description: '' }));
    assert.equal(matchCommands(many, 'c').length, maxShown);
  });

  it('choosing replaces the typed word with "/name " and keeps what follows', () => {
    assert.deepEqual(insertCommand('/ex', commands[1]), { text: '/explain ', caret: 9 });
    assert.deepEqual(insertCommand('/ex  src/a.ts', commands[1]), { text: '/explain src/a.ts', caret: 9 });
    assert.deepEqual(insertCommand('/', commands[0]), { text: '/review ', caret: 8 });
  });

  it('shows the input hint while the command has no input yet', () => {
    assert.equal(pendingHint('/explain ', commands)?.name, 'explain');
    assert.equal(pendingHint('/explain foo', commands), undefined);
    assert.equal(pendingHint('/review ', commands), undefined, 'no hint to show');
  });

  it('arrows move and wrap, Enter accepts the active one, and the list closes', () => {
    const list = new CommandCompletions();
    assert.equal(list.update('/', 1, commands), true);
    assert.equal(list.open, true);
    assert.equal(list.activeCommand?.name, 'review');
    list.move(1);
    assert.equal(list.activeCommand?.name, 'explain');
    list.move(-2);
    assert.equal(list.activeCommand?.name, 'preview', 'up from the first wraps to the last');
    list.move(1);
    assert.equal(list.activeCommand?.name, 'review', 'down from the last wraps to the first');
    list.move(1);
    assert.deepEqual(list.accept('/'), { text: '/explain ', caret: 9 });
    assert.equal(list.open, false);
    // The caret now sits after the command word: typing its input opens nothing.
    assert.equal(list.update('/explain x', 10, commands), false);
    assert.equal(list.open, false);
  });

  it('typing narrows the list and keeps the active command while it still matches', () => {
    const list = new CommandCompletions();
    list.update('/', 1, commands);
    list.move(3);
    assert.equal(list.activeCommand?.name, 'preview');
    list.update('/', 1, commands);
    assert.equal(list.activeCommand?.name, 'preview', 'same query, same active entry');
    list.update('/r', 2, commands);
    assert.equal(list.activeCommand?.name, 'review', 'a new query starts at the best match');
    list.update('/rx', 3, commands);
    assert.equal(list.open, false);
  });

  it('Escape closes the list until what is typed changes', () => {
    const list = new CommandCompletions();
    list.update('/re', 3, commands);
    list.dismiss();
    assert.equal(list.open, false);
    list.update('/re', 3, commands);
    assert.equal(list.open, false, 'a caret move does not bring it back');
    list.update('/rev', 4, commands);
    assert.equal(list.open, true, 'typing does');
  });

  it('stays closed without commands, and accept with nothing open changes nothing', () => {
    const list = new CommandCompletions();
    assert.equal(list.update('/', 1, []), false);
    assert.equal(list.accept('/'), undefined);
  });
});
