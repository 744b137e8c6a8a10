// The text kept between searches: within its budget, the newest sessions stay, a changed file is read again.

import * as assert from 'node:assert/strict';
import { SearchCache } from '../../../src/extension/core/search/searchCache';

const entry = (chars: number, updatedAt: number) => ({ text: 'x'.repeat(chars), size: chars, mtimeMs: 1, cut: false, updatedAt });

describe('SearchCache', () => {
  it('keeps the newest sessions when the budget is full: an older one is not let in, a newer one drops the oldest', () => {
    const cache = new SearchCache(100);
    cache.put('new', entry(40, 30));
    cache.put('mid', entry(40, 20));
    cache.put('old', entry(40, 10));
    assert.equal(cache.get('old', { size: 40, mtimeMs: 1 }), undefined, 'an older session does not push out newer ones');
    assert.ok(cache.get('mid', { size: 40, mtimeMs: 1 }));
    cache.put('newest', entry(40, 40));
    assert.equal(cache.get('mid', { size: 40, mtimeMs: 1 }), undefined, 'the oldest kept gives way to a newer one');
    assert.ok(cache.get('new', { size: 40, mtimeMs: 1 }));
    assert.ok(cache.get('newest', { size: 40, mtimeMs: 1 }));
    assert.equal(cache.size, 80);
  });

  it('forgets an entry whose file changed, and never keeps one larger than the whole budget', () => {
    const cache = new SearchCache(100);
    cache.put('a', entry(10, 1));
    assert.equal(cache.get('a', { size: 11, mtimeMs: 1 }), undefined);
    assert.equal(cache.size, 0);
    cache.put('huge', entry(101, 2));
    assert.equal(cache.size, 0);
    cache.put('a', entry(10, 1));
    cache.put('a', entry(20, 1));
    assert.equal(cache.size, 20, 'an entry put again replaces the old one');
  });
});
