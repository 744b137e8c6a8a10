// The elicitation form both sides read: the agent's schema reduced to the shapes ACP allows (refused,
// with why, beyond them or the bounds), answers validated field by field, URLs limited to http(s).

import * as assert from 'node:assert/strict';
import { checkElicitationUrl, initialValues, normalizeSchema, validateValues, type ElicitationFormView } from '../../../src/shared/elicitationForm';
import { coerce, contentOf } from '../../../src/webview/elicitationView';

const schema = {
  type: 'object',
  title: 'Deploy',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 5 },
    email: { type: 'string', format: 'email' },
    when: { type: 'string', format: 'date' },
    n: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    ok: { type: 'boolean', default: true },
    region: { type: 'string', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'US' }], default: 'us' },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2, default: ['a', 'zzz'] },
  },
  required: ['name', 'region'],
};

function form(): ElicitationFormView {
  const r = normalizeSchema(schema);
  assert.ok(r.ok);
  return r.form;
}

describe('elicitation forms', () => {
  it('reads every field kind with its bounds, required flags and (valid) defaults', () => {
    const f = form();
    assert.deepEqual(f.fields.map((x) => [x.name, x.type, x.required]), [
      ['name', 'string', true], ['email', 'string', false], ['when', 'string', false], ['n', 'integer', false],
      ['ratio', 'number', false], ['ok', 'boolean', false], ['region', 'enum', true], ['tags', 'multi', false],
    ]);
    assert.deepEqual(initialValues(f), { n: 2, ok: true, region: 'us', tags: ['a'] }, 'a default outside the options is dropped');
  });

  it('refuses what it cannot show faithfully, saying why', () => {
    const fields = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: 'string' }]));
    assert.match(JSON.stringify(normalizeSchema({ type: 'object', properties: fields })), /51 fields; Vigil shows at most 50/);
    assert.match(JSON.stringify(normalizeSchema({ properties: { x: { type: 'object' } } })), /type \\"object\\" is not one Vigil can show/);
    assert.match(JSON.stringify(normalizeSchema({ properties: { x: { type: 'string', enum: [] } } })), /offers no options/);
    assert.match(JSON.stringify(normalizeSchema({ properties: { x: { type: 'string', enum: Array.from({ length: 101 }, (_, i) => String(i)) } } })), /101 options/);
    assert.match(JSON.stringify(normalizeSchema({ properties: {}, required: ['ghost'] })), /ghost/);
    assert.match(JSON.stringify(normalizeSchema({ properties: { x: { type: 'integer', minimum: 5, maximum: 1 } } })), /minimum is larger/);
    assert.equal(normalizeSchema('not a schema').ok, false);
  });

  it('caps string lengths whatever the agent asks, and clips long titles', () => {
    const r = normalizeSchema({ properties: { x: { type: 'string', maxLength: 1e9, title: 't'.repeat(5_000) } } });
    assert.ok(r.ok);
    const x = r.form.fields[0];
    assert.equal(x.type === 'string' && x.maxLength, 10_000);
    assert.equal(x.title.length, 200);
  });

  it('validates every rule, and unknown fields', () => {
    const f = form();
    assert.deepEqual(validateValues(f, { name: 'ab', region: 'eu' }), {});
    assert.deepEqual(Object.keys(validateValues(f, {})).sort(), ['name', 'region']);
    const errors = validateValues(f, { name: 'a', email: 'nope', when: '2024-13-45', n: 2.5, ratio: 3, ok: 'yes', region: 'mars', tags: ['a', 'b', 'c'], extra: 1 });
    assert.deepEqual(errors, {
      extra: 'This field is not part of the form.',
      name: 'At least 2 characters.',
      email: 'Enter an email address.',
      when: 'Enter a date as YYYY-MM-DD.',
      n: 'Enter a whole number.',
      ratio: 'At most 1.',
      ok: 'Choose yes or no.',
      region: 'Choose one of the options.',
      tags: 'Choose at most 2.',
    });
    assert.equal(validateValues(f, { name: 'abcdef', region: 'eu' }).name, 'At most 5 characters.');
    assert.equal(validateValues(f, { name: 'ab', region: 'eu', tags: ['a', 'a'] }).tags, 'An option is chosen twice.');
  });

  it('the view turns inputs into typed values and sends only fields with a value', () => {
    const [name, , , n, , ok] = form().fields;
    assert.equal(coerce(n, '3'), 3);
    assert.equal(coerce(n, ''), undefined);
    assert.ok(Number.isNaN(coerce(n, 'x') as number));
    assert.equal(coerce(ok, true), true);
    assert.equal(coerce(name, ''), undefined);
    assert.deepEqual(contentOf({ name: 'ab', email: '' }), { name: 'ab' });
  });

  it('opens only http and https links without credentials, and names their host', () => {
    assert.deepEqual(checkElicitationUrl('https://login.example.com/x?y=1'), { ok: true, url: 'https://login.example.com/x?y=1', host: 'login.example.com' });
    assert.equal(checkElicitationUrl('https://exаmple.com/').ok && (checkElicitationUrl('https://exаmple.com/') as { host: string }).host, 'xn--exmple-4nf.com', 'a look-alike host is shown as punycode');
    for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'command:workbench.action.quit', 'https://user:pw@example.com/', 'not a url', 'https://x/'.padEnd(3_000, 'a')]) {
      assert.equal(checkElicitationUrl(bad).ok, false, bad);
    }
  });
});
