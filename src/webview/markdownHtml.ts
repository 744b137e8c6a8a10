// Markdown → HTML with the first line of defence built in: raw HTML in the source is shown as text
// and links keep only safe schemes. DOM-free, so it is unit-tested on plain Node; DOMPurify
// (markdown.ts) is the second line, in the browser.

import { Marked, type Tokens } from 'marked';

const safeHref = /^(https?:|mailto:|vscode:|#)/i;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Only absolute http(s)/mailto/vscode links and in-page anchors; everything else becomes plain text. */
export function isSafeHref(href: string): boolean {
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:").
  let compact = '';
  for (const ch of href) {
    const code = ch.codePointAt(0)!;
    if (code > 0x20 && (code < 0x7f || code > 0x9f)) compact += ch;
  }
  return safeHref.test(compact);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const label = this.parser.parseInline(token.tokens);
      if (!isSafeHref(token.href)) return label;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : '';
      return `<a href="${escapeHtml(token.href)}"${title}>${label}</a>`;
    },
    // The CSP allows no remote images; a link keeps the information without a broken image.
    image(token: Tokens.Image): string {
      const text = escapeHtml(token.text || token.href);
      return isSafeHref(token.href) ? `<a href="${escapeHtml(token.href)}">${text}</a>` : text;
    },
  },
});

export function markdownToHtml(markdown: string): string {
  return marked.parse(markdown, { async: false }) as string;
}
