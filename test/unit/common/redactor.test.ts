// The one redactor: plain string search over every known secret, on text, JSON-like values and streams.

import { strict as assert } from 'node:assert';
import { MIN_SECRET_CHARS, REDACTED, Redactor } from '../../../src/extension/core/common/redactor';
import { redactingLogger } from '../../../src/extension/core/common/redactingLogger';

const KEY = 'sk-test-0123456789abcdef';

function redactorWith(...secrets: string[]): Redactor {
  const r = new Redactor();
  r.add(secrets);
  return r;
}

/** Every way of cutting `text` into two or three pieces, streamed: no piece and no join ever shows a secret. */
function everySplit(text: string): string[][] {
  const splits: string[][] = [];
  for (let i = 0; i <= text.length; i += 1) {
    splits.push([text.slice(0, i), text.slice(i)]);
    for (let j = i; j <= text.length; j += 3) splits.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return splits;
}

function streamed(r: Redactor, pieces: string[]): { out: string[]; joined: string } {
  const s = r.stream();
  const out = pieces.map((p) => s.push(p));
  out.push(s.flush());
  return { out, joined: out.join('') };
}

describe('redactor', () => {
  it('an empty set changes nothing and returns the very same values', () => {
    const r = new Redactor();
    const value = { a: ['x', { b: KEY }] };
    assert.equal(r.redact(`key ${KEY}`), `key ${KEY}`);
    assert.equal(r.redactValue(value), value);
    const s = r.stream();
    assert.equal(s.push('sk-'), 'sk-', 'nothing is held back when there is nothing to hide');
    assert.equal(s.pending, false);
  });

  it('replaces every occurrence, wherever it stands', () => {
    const r = redactorWith(KEY);
    assert.equal(r.redact(`${KEY}`), REDACTED);
    assert.equal(r.redact(`Bearer ${KEY}, again:${KEY}.`), `Bearer ${REDACTED}, again:${REDACTED}.`);
    assert.equal(r.redact('nothing here'), 'nothing here');
  });

  it('ignores values too short to be secrets, and trims what it learns', () => {
    const r = redactorWith('1', 'true', 'debug', 'x'.repeat(MIN_SECRET_CHARS - 1), `  ${KEY}\n`);
    assert.equal(r.redact('debug=true x=1 xxxxxxx'), 'debug=true x=1 xxxxxxx');
    assert.equal(r.redact(`k=${KEY}`), `k=${REDACTED}`);
  });

  it('treats regular-expression metacharacters in a secret as plain characters', () => {
    const secret = 'a.b*c+(d)?[e]{2}|^$\\f/g';
    const r = redactorWith(secret);
    assert.equal(r.redact(`x ${secret} y`), `x ${REDACTED} y`);
    assert.equal(r.redact('x aXbbbc+(d)?[e]{2}|^$\\f/g y'), 'x aXbbbc+(d)?[e]{2}|^$\\f/g y', 'no wildcard matching');
    assert.equal(r.redact('$& $1 $$'), '$& $1 $$', 'replacement patterns mean nothing either');
    const dollars = redactorWith('$&$&$&$&');
    assert.equal(dollars.redact('<$&$&$&$&>'), `<${REDACTED}>`);
  });

  it('merges overlapping and touching secrets into one marker, never leaving a piece of either', () => {
    const a = 'ABCDEFGH1234';
    const b = 'GH1234WXYZ99';
    const r = redactorWith(a, b);
    assert.equal(r.redact('..ABCDEFGH1234WXYZ99..'), `..${REDACTED}..`);
    assert.equal(r.redact(`${a}${a}`), REDACTED);
    const inner = redactorWith('0123456789', '3456789012345');
    assert.equal(inner.redact('x0123456789012345y'), `x${REDACTED}y`);
    const self = redactorWith('aaaaaaaa');
    assert.equal(self.redact('aaaaaaaaaaa b'), `${REDACTED} b`, 'overlapping occurrences of one secret');
  });

  it('redacts JSON-like values deeply, copying only what changed', () => {
    const r = redactorWith(KEY);
    const untouched = { c: [1, 'plain'] };
    const value = { a: `x${KEY}`, b: [null, 3, { deep: KEY }], untouched, [KEY]: true, n: 5 };
    const out = r.redactValue(value);
    assert.deepEqual(out, { a: `x${REDACTED}`, b: [null, 3, { deep: REDACTED }], untouched, [REDACTED]: true, n: 5 });
    assert.equal(out.untouched, untouched, 'an unchanged branch is shared');
    assert.equal(value.a, `x${KEY}`, 'the input is not modified');
    assert.deepEqual(Object.keys(out), ['a', 'b', 'untouched', REDACTED, 'n'], 'keys keep their order');
    const cyclic: Record<string, unknown> = { k: KEY };
    cyclic.self = cyclic;
    assert.equal((r.redactValue(cyclic) as { k: string }).k, REDACTED, 'a cycle does not hang it');
  });

  it('a secret learned later applies to the next redaction at once', () => {
    const r = new Redactor();
    assert.equal(r.redact(KEY), KEY);
    r.add([KEY]);
    assert.equal(r.redact(KEY), REDACTED);
  });

  it('catches a secret cut at any point across streamed pieces, and loses no other text', () => {
    const r = redactorWith(KEY, 'OTHERSECRET9');
    const text = `start ${KEY} mid sk-test-0123 OTHERSECRET9${KEY}sk- end s`;
    const expected = r.redact(text);
    for (const pieces of everySplit(text)) {
      const { out, joined } = streamed(r, pieces);
      // Two touching secrets cut apart by the stream may get a marker each instead of one shared one.
      assert.equal(joined.split(REDACTED + REDACTED).join(REDACTED), expected, JSON.stringify(pieces));
      for (const piece of out) assert.ok(!piece.includes(KEY) && !piece.includes('OTHERSECRET9'), JSON.stringify(pieces));
    }
  });

  it('across pieces, overlapping secrets are still never shown in part', () => {
    const a = 'ABCDEFGH1234';
    const b = 'GH1234WXYZ99';
    const r = redactorWith(a, b);
    const text = 'x ABCDEFGH1234WXYZ99 y GH1234WXYZ99 ABCDEFGH1234';
    for (const pieces of everySplit(text)) {
      const { joined } = streamed(r, pieces);
      for (const fragment of ['ABCDEFGH', 'GH1234WX', 'WXYZ99']) assert.ok(!joined.includes(fragment), `${JSON.stringify(pieces)} → ${joined}`);
      assert.ok(joined.startsWith('x ') && joined.endsWith(REDACTED), joined);
    }
  });

  it('holds back only what can still become a secret', () => {
    const r = redactorWith(KEY);
    const s = r.stream();
    assert.equal(s.push('hello wor'), 'hello wor');
    assert.equal(s.pending, false);
    assert.equal(s.push('ld sk-te'), 'ld ');
    assert.equal(s.pending, true);
    assert.equal(s.push('a time'), 'sk-tea time', 'a prefix that stopped matching is released unchanged');
    assert.equal(s.push(' sk-test-0123'), ' ');
    assert.equal(s.flush(), 'sk-test-0123', 'at the end, a part of a secret is not the secret');
  });

  it('catches the forms a provider or a shell echoes a key in: URL, JSON, base64 of the key alone, upper and lower case', () => {
    const secret = 'sk-Test/0123+4567=89"ab\\cd';
    const r = redactorWith(secret);
    const b64 = Buffer.from(secret).toString('base64');
    const forms = {
      'encodeURIComponent': encodeURIComponent(secret),
      'percent-encoded, / kept': encodeURIComponent(secret).replace(/%2F/g, '/'),
      'JSON string': JSON.stringify(secret).slice(1, -1),
      'JSON with \\/': JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/'),
      'base64': b64,
      'base64 without padding': b64.replace(/=+$/, ''),
      'base64url': b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
      'echo $KEY | base64': Buffer.from(`${secret}\n`).toString('base64'),
      'upper case': secret.toUpperCase(),
      'lower case': secret.toLowerCase(),
    };
    for (const [name, form] of Object.entries(forms)) {
      const out = r.redact(`got ${form} back`);
      assert.ok(out.startsWith(`got ${REDACTED}`), `${name}: ${out}`);
      // At most the last bytes of a base64 form remain (they also encode what follows the key).
      assert.ok(out.length <= `got ${REDACTED} back`.length + 4, `${name}: ${out}`);
    }
  });

  it('catches a long key piped through base64, wrapped at 76 characters', () => {
    const secret = `sk-ant-api03-${'Xb7Qz9LmN2pR4sT6uV8wY0aC2eG4iK6mO8qS0uW2'.repeat(2)}-AbCdEfGh`;
    const wrapped = Buffer.from(`${secret}\n`).toString('base64').replace(/.{76}/g, '$&\n');
    const out = redactorWith(secret).redact(wrapped);
    assert.equal(out.split('\n').length, 2);
    for (const line of out.split('\n')) assert.ok(line.startsWith(REDACTED) && line.length <= REDACTED.length + 4, out);
  });

  it('an encoded form split across streamed pieces is caught too', () => {
    const r = redactorWith(KEY);
    const text = `a ${Buffer.from(KEY).toString('base64')} b ${KEY.toUpperCase()} c`;
    for (const pieces of everySplit(text)) {
      const { joined } = streamed(r, pieces);
      assert.equal(joined, `a ${REDACTED} b ${REDACTED} c`, JSON.stringify(pieces));
    }
  });

  it('a released tail is shown, and the rest of a secret it starts is still cut from the next piece', () => {
    const r = redactorWith(KEY);
    const s = r.stream();
    assert.equal(s.push('say sk'), 'say ');
    assert.equal(s.release(), 'sk');
    assert.equal(s.pending, false);
    assert.equal(s.release(), '', 'nothing is shown twice');
    assert.equal(s.push('-test-01'), '', 'still a possible secret: held, its start already shown');
    assert.equal(s.push('23456789abcdef!'), `${REDACTED}!`, 'the rest of the secret is cut');
    const innocent = r.stream();
    assert.equal(innocent.push('results'), 'result');
    assert.equal(innocent.release(), 's');
    assert.equal(innocent.push(' and more'), ' and more', 'not a secret after all: nothing is lost or repeated');
    assert.equal(innocent.flush(), '');
  });

  it('a logger built on it redacts messages, strings, objects and errors', () => {
    const r = redactorWith(KEY);
    const lines: unknown[][] = [];
    const sink = (level: string) => (m: unknown, ...a: unknown[]) => lines.push([level, m, ...a]);
    const logger = redactingLogger({ trace: sink('trace'), debug: sink('debug'), info: sink('info'), warn: sink('warn'), error: sink('error') }, r);
    logger.info(`key ${KEY}`, KEY, { nested: [KEY] });
    logger.error(new Error(`401: ${KEY}`), new Error(`cause ${KEY}`));
    const all = JSON.stringify(lines);
    assert.ok(!all.includes(KEY), all);
    assert.ok(all.includes('401: «redacted»'), all);
  });
});
