// The DOM-free half of markdown sanitizing: raw HTML never renders as markup and unsafe link
// schemes never become links. (DOMPurify, the browser half, runs only in Chromium: see e2e.)

import * as assert from 'node:assert/strict';
import { Marked } from 'marked';
import { blockStartChecks, isSafeHref, markdownToHtml } from '../../../src/webview/markdownHtml';
import { seededRandom as random } from '../../fakes/seededRandom';

/** Lines made of the characters that start or break the block rules the checks skip. */
function randomMarkdown(rnd: () => number): string {
  const pieces = [' ', '  ', '   ', '    ', '\t', '>', '> ', '<', '<div>', '</p>', '<!--', '-->', '<?x ?>', '<![CDATA[', '[a]: /u', '[', ']', ':', '|', '| a |', '---', '-', ':-:', '*', '#', '```', '~~~', '=', '1.', 'a', 'text', '\n', '\n', '\n', '\n\n', '\r\n', '\u2028'];
  let out = '';
  const n = 1 + Math.floor(rnd() * 40);
  for (let i = 0; i < n; i++) out += pieces[Math.floor(rnd() * pieces.length)];
  return out;
}

describe('markdown to HTML', () => {
  it('renders ordinary markdown', () => {
    const html = markdownToHtml('**bold** and `code`\n\n```ts\nconst a = 1 < 2;\n```\n\n[docs](https://example.com)');
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<code>code<\/code>/);
    assert.match(html, /const a = 1 &lt; 2;/);
    assert.match(html, /<a href="https:\/\/example.com\/">docs<\/a>/);
  });

  it('shows script tags as text', () => {
    const html = markdownToHtml('hi <script>alert(1)</script>\n\n<script src="https://evil.example/x.js"></script>');
    assert.doesNotMatch(html, /<script/i);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('shows event-handler markup as text', () => {
    const html = markdownToHtml('<img src=x onerror="alert(1)">\n\n<div onclick="steal()">x</div> <a href="#" onmouseover="x()">y</a>');
    assert.doesNotMatch(html, /<img|<div|<a /i);
    assert.doesNotMatch(html, /<[^>]*\son\w+=/i, 'no event-handler attribute inside a tag');
    assert.match(html, /&lt;img src=x onerror=/);
  });

  it('drops javascript:, data: and vbscript: links, keeping their text', () => {
    for (const href of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'java\tscript:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox(1)']) {
      const html = markdownToHtml(`[click me](<${href}>)`);
      assert.doesNotMatch(html, /<a /, `link kept for ${JSON.stringify(href)}: ${html}`);
      assert.match(html, /click me/);
    }
    assert.doesNotMatch(markdownToHtml('![x](javascript:alert(1))'), /<a |<img/);
  });

  it('renders images as links, since the CSP loads no remote images', () => {
    const html = markdownToHtml('![diagram](https://example.com/a.png)');
    assert.match(html, /<a href="https:\/\/example.com\/a.png">diagram<\/a>/);
    assert.doesNotMatch(html, /<img/);
  });

  it('escapes quotes in link titles and hrefs', () => {
    const html = markdownToHtml('[x](https://example.com/"onmouseover="alert(1) "t\\"itle")');
    assert.doesNotMatch(html, /"\s*onmouseover=/);
  });

  it('tokenizes exactly as marked alone: the block checks only skip rules that cannot match', () => {
    const plain = new Marked({ gfm: true, breaks: false, async: false });
    const checked = new Marked({ gfm: true, breaks: false, async: false, tokenizer: blockStartChecks });
    const samples = [
      '> quote\n> more\n\ntext', '   > three spaces', '    > four spaces is code', '\t> tab', '>no space',
      '<div>\nblock\n</div>\n\nafter', '   <!-- c -->', '    <div>', '<p>x</p>', 'a <b>inline</b>',
      '[ref]: https://example.com "t"\n\n[x][ref]', '   [ref]: /u', '    [ref]: /u', 'text\n[ref]: /u',
      '| a | b |\n| - | - |\n| 1 | 2 |', 'a | b\n--|--\n1 | 2', '  a | b\n   |:-|\nx', 'a | b\n    |--|', 'a\n-', 'a\n:-',
      'Title\n===\n\nSub\n---', '- a\n  > q\n- <div>\n- [r]: /u', '1. a\n   | x |\n   |---|', '```\n> not a quote\n```',
      'para\n> quote after para', 'para\n<div>', 'para\n| a |\n|---|', '\r\n> q\r\n', 'a\u2028b\n|-|',
    ];
    const rnd = random(2026);
    for (let i = 0; i < 3_000; i++) samples.push(randomMarkdown(rnd));
    for (const md of samples) {
      assert.deepEqual(checked.lexer(md), plain.lexer(md), `tokens differ for ${JSON.stringify(md)}`);
    }
  });

  it('classifies hrefs', () => {
    assert.ok(isSafeHref('https://example.com'));
    assert.ok(isSafeHref('http://localhost:3000'));
    assert.ok(isSafeHref('mailto:a@b.c'));
    assert.ok(!isSafeHref('#section'), 'in-page anchors are not among the allowed links');
    assert.ok(!isSafeHref('javascript:alert(1)'));
    assert.ok(!isSafeHref('\u0000javascript:alert(1)'));
    assert.ok(!isSafeHref('file:///etc/passwd'));
    assert.ok(!isSafeHref('command:workbench.action.terminal.new'), 'VS Code command links are not for model output');
    assert.ok(!isSafeHref('relative/path'));
  });
});
