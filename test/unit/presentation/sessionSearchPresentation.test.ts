// What the search pick shows: rows whose hostile text draws no icon, and a title that says how far the search got.

import * as assert from 'node:assert/strict';
import { escapeIcons, searchRow, searchStatus } from '../../../src/extension/presentation/sessionSearchPresentation';
import type { SearchResult } from '../../../src/extension/core/search/sessionSearch';

const limits = { budgetMs: 3_000, maxBytesPerSession: 4 * 1024 * 1024 };
const result = (patch: Partial<SearchResult>): SearchResult => ({ query: 'parser', hits: [], searched: 10, total: 10, cut: 0, unreadable: 0, cancelled: false, ...patch });
const hit = { sessionId: 's1', title: 'Fix $(zap) the parser', updatedAt: 0, where: 'transcript' as const, snippet: 'the $(alert) parser fails' };

describe('session search presentation', () => {
  it('shows a hit\'s title, where it matched and when, and its snippet, with `$(` escaped so no text draws an icon', () => {
    assert.deepEqual(searchRow(hit, 3 * 86_400_000), {
      sessionId: 's1',
      label: 'Fix \\$(zap) the parser',
      description: 'in the transcript · 3 days ago',
      detail: 'the \\$(alert) parser fails',
    });
    assert.deepEqual(searchRow({ ...hit, title: '  ', where: 'title', snippet: undefined }, 0), { sessionId: 's1', label: 'Untitled session', description: 'in the title · just now', detail: undefined });
    assert.equal(escapeIcons('\\$(x) $($('), '\\\\$(x) \\$(\\$(');
  });

  it('says what is searched before a query, and how many match after', () => {
    assert.equal(searchStatus({ sessions: 12, searching: false }, limits), 'Search 12 sessions of this folder');
    assert.equal(searchStatus({ sessions: 12, searching: true, result: result({ hits: [hit] }) }, limits), 'Searching… 1 session matches so far');
    assert.equal(searchStatus({ sessions: 12, searching: false, result: result({}) }, limits), 'No session matches');
    assert.equal(searchStatus({ sessions: 12, searching: false, result: result({ hits: [hit, hit] }) }, limits), '2 sessions match');
  });

  it('says when the results are partial, and why', () => {
    const partial = result({ hits: [hit], stopped: 'time', searched: 888, total: 1_000, cut: 1, unreadable: 2 });
    assert.equal(
      searchStatus({ sessions: 1_000, searching: false, result: partial }, limits),
      '1 session matches (searched the newest 888 of 1,000 sessions in the 3 s allowed; 1 long transcript searched in its first 4 MB; 2 transcripts could not be read (see Vigil: Show Log))',
    );
    assert.equal(searchStatus({ sessions: 99, searching: false, result: result({ hits: [hit, hit], stopped: 'limit' }) }, limits), 'The 2 most recent matches (more match: type more to narrow)');
  });
});
