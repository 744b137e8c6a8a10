// Links in model markdown: http(s), mailto and files inside the workspace stay links; a list of
// hostile targets (VS Code URIs, commands, scripts, data, files outside, tricks with encoding) are text.

import * as assert from 'node:assert/strict';
import { classifyHref } from '../../../src/webview/linkPolicy';
import { markdownToHtml } from '../../../src/webview/markdownHtml';

const root = '/home/dev/project';

/** Each of these must render as plain text, with its label kept. */
const hostile: string[] = [
  'vscode://ms-vscode.remote-server/do?x=1',
  'VSCODE://vscode.git/clone?url=https://evil.example/r.git',
  'vscode-insiders://ext/handler',
  'vscode:extension/evil.publisher',
  'command:workbench.action.terminal.new',
  'command:_workbench.downloadResource?%5B%22https%3A%2F%2Fevil.example%22%5D',
  'COMMAND:vigil.abortTurn',
  ' command:workbench.action.openSettings',
  'comm\tand:workbench.action.reloadWindow',
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\nscript:alert(1)',
  '\u0001javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'data:image/svg+xml;base64,PHN2Zy8+',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'file:///home/dev/project/../secrets/key',
  'file://evil.example/home/dev/project/a.ts',
  'file:///home/dev/project-evil/a.ts',
  '//evil.example/x',
  '\\\\evil.example\\share',
  '/\\evil.example/x',
  '/etc/passwd',
  '/home/dev/project-other/a.ts',
  '/home/dev/project/../other/a.ts',
  '../outside.txt',
  'src/../../outside.txt',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e/%2e%2e/etc/passwd',
  'src/%00evil',
  'src/%E0%A4%A',
  'https:evil.example',
  'https:/\\evil.example',
  'https://good.example@evil.example/',
  'https://user:pass@evil.example/',
  'http://',
  'ftp://files.example/a',
  'ssh://git@example.com/repo',
  'blob:https://example.com/uuid',
  'about:blank',
  'chrome://settings',
  'intent://scan/#Intent;scheme=zxing;end',
  'ms-settings:privacy',
  'x-apple.systempreferences:',
  'tel:+15555555555',
  'mailto\u202e:a@b.c',
  'https://exa\u200bmple.com',
  '#section',
  '',
  `https://example.com/${'a'.repeat(5_000)}`,
  '/home/dev/project',
];

describe('markdown link policy', () => {
  for (const href of hostile) {
    it(`renders ${JSON.stringify(href.length > 80 ? `${href.slice(0, 80)}…` : href)} as text`, () => {
      assert.equal(classifyHref(href, root), undefined);
      const html = markdownToHtml(`see [the label](<${href.replace(/>/g, '%3E')}>) here`, root);
      assert.doesNotMatch(html, /<a[\s>]/, html);
      assert.match(html, /the label/);
    });
  }

  it('keeps http(s) and mailto links, normalized to what the browser will open', () => {
    assert.deepEqual(classifyHref('https://example.com/a?b=1#c'), { kind: 'web', href: 'https://example.com/a?b=1#c' });
    assert.deepEqual(classifyHref('HTTP://Example.COM'), { kind: 'web', href: 'http://example.com/' });
    assert.deepEqual(classifyHref(' https://example.com/x '), { kind: 'web', href: 'https://example.com/x' });
    assert.deepEqual(classifyHref('mailto:dev@example.com?subject=hi'), { kind: 'web', href: 'mailto:dev@example.com?subject=hi' });
    const html = markdownToHtml('[docs](https://example.com/docs "The docs")', root);
    assert.match(html, /<a href="https:\/\/example.com\/docs" title="The docs">docs<\/a>/);
  });

  it('keeps workspace file links: relative, absolute inside, file: inside, with a line', () => {
    assert.deepEqual(classifyHref('src/a.ts', root), { kind: 'file', path: '/home/dev/project/src/a.ts' });
    assert.deepEqual(classifyHref('./src/../README.md', root), { kind: 'file', path: '/home/dev/project/README.md' });
    assert.deepEqual(classifyHref('/home/dev/project/src/a.ts#L12', root), { kind: 'file', path: '/home/dev/project/src/a.ts', line: 12 });
    assert.deepEqual(classifyHref('file:///home/dev/project/src/my%20file.ts', root), { kind: 'file', path: '/home/dev/project/src/my file.ts' });
    assert.deepEqual(classifyHref('..env', root), { kind: 'file', path: '/home/dev/project/..env' }, 'a name beginning with .. is inside');
    assert.deepEqual(classifyHref('src/..hidden/x', root), { kind: 'file', path: '/home/dev/project/src/..hidden/x' });
    // A double-encoded dot stays a literal name: decoded once, never twice.
    assert.deepEqual(classifyHref('%252e%252e/x', root), { kind: 'file', path: '/home/dev/project/%2e%2e/x' });
  });

  it('renders a file link without an href, for the view to open through the host', () => {
    const html = markdownToHtml('Open [a.ts](src/a.ts#L3) or [notes](<src/my notes.md>)', root);
    assert.match(html, /<a class="file-link" role="link" tabindex="0" data-vigil-file="\/home\/dev\/project\/src\/a.ts" data-vigil-line="3" title="Open \/home\/dev\/project\/src\/a.ts:3">a.ts<\/a>/);
    assert.match(html, /data-vigil-file="\/home\/dev\/project\/src\/my notes.md"/);
    assert.doesNotMatch(html, /href=/);
  });

  it('renders no file links at all without a workspace folder', () => {
    assert.equal(classifyHref('src/a.ts'), undefined);
    assert.doesNotMatch(markdownToHtml('[a](src/a.ts) [b](/home/dev/project/a.ts)'), /<a[\s>]/);
  });

  it('escapes a file link path that carries markup', () => {
    const html = markdownToHtml('[x](<src/"><img src=x onerror=alert(1)>.ts>)', root);
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /"><img/);
  });

  it('Windows workspace folders: drive paths inside are files, other drives and UNC are text', () => {
    const win = 'C:\\Users\\dev\\project';
    assert.deepEqual(classifyHref('src\\a.ts', win), { kind: 'file', path: 'C:\\Users\\dev\\project\\src\\a.ts' });
    assert.deepEqual(classifyHref('c:/users/dev/project/b.ts', win), { kind: 'file', path: 'c:\\users\\dev\\project\\b.ts' });
    assert.deepEqual(classifyHref('file:///C:/Users/dev/project/c.ts', win), { kind: 'file', path: 'C:\\Users\\dev\\project\\c.ts' });
    for (const href of ['D:/Users/dev/project/a.ts', 'C:/Users/dev/other/a.ts', '\\\\server\\share\\a.ts', '\\Windows\\x', 'C:relative', '..\\..\\x']) {
      assert.equal(classifyHref(href, win), undefined, href);
    }
  });

  it('images load nothing: an allowed target becomes a link, anything else its text', () => {
    assert.doesNotMatch(markdownToHtml('![pic](https://example.com/p.png) ![svg](data:image/svg+xml,<svg/>) ![f](src/a.png)', root), /<img/);
    assert.doesNotMatch(markdownToHtml('![pixel](vscode://evil/x)', root), /<a[\s>]/);
  });
});
