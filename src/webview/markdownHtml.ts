// Markdown → HTML with the first line of defence built in: raw HTML in the source is shown as text,
// and only http(s), mailto and workspace-file links stay links (linkPolicy.ts). DOM-free, so it is
// unit-tested on plain Node; DOMPurify (markdown.ts) is the second line, in the browser.

import { Marked, type TokenizerObject, type Tokens } from 'marked';
import { classifyHref, type LinkTarget } from './linkPolicy';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** True when `href` renders as a link without a workspace (web and mail links only). */
export function isSafeHref(href: string): boolean {
  return classifyHref(href)?.kind === 'web';
}

/** The session's workspace folder while one parse runs (parsing is synchronous). */
let currentRoot: string | undefined;

/** A file link has no href: the webview's click handler asks the host to open it, and VS Code's own link handling never sees it. */
function anchor(target: LinkTarget, label: string, title: string | null | undefined): string {
  if (target.kind === 'web') {
    return `<a href="${escapeHtml(target.href)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${label}</a>`;
  }
  const where = target.line !== undefined ? `${target.path}:${target.line}` : target.path;
  const line = target.line !== undefined ? ` data-vigil-line="${target.line}"` : '';
  return `<a class="file-link" role="link" tabindex="0" data-vigil-file="${escapeHtml(target.path)}"${line} title="${escapeHtml(`Open ${where}`)}">${label}</a>`;
}

/**
 * Block rules marked tries on every block before a paragraph, each with a large regular expression
 * (the HTML tag list; the blockquote rule holds the whole paragraph rule). A fresh page compiles each
 * one on its first use, in the first paint of the first agent message. A block that cannot start one
 * of them skips its regular expression: every test below is implied by the rule's own pattern, so what
 * matches does not change (checked against plain marked in markdownHtml.test.ts). `false` hands the
 * block to marked's own rule; `undefined` is "not this rule", as when its pattern does not match.
 */
export const blockStartChecks: TokenizerObject = {
  blockquote: (src) => (/^ {0,3}>/.test(src) ? false : undefined),
  html: (src) => (/^ {0,3}</.test(src) ? false : undefined),
  def: (src) => (/^ {0,3}\[/.test(src) ? false : undefined),
  // A table's second line (its delimiter row) starts with `|`, `:` or `-` after at most three spaces.
  table: (src) => (/^ *[^\n ].*\n {0,3}[|:-]/.test(src) ? false : undefined),
};

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  tokenizer: blockStartChecks,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link): string {
      const label = this.parser.parseInline(token.tokens);
      const target = classifyHref(token.href, currentRoot);
      return target ? anchor(target, label, token.title) : label;
    },
    // Images load nothing: the CSP allows only the extension's own resources, so an image becomes a
    // link to it when it is a link Vigil allows, else its text.
    image(token: Tokens.Image): string {
      const text = escapeHtml(token.text || token.href);
      const target = classifyHref(token.href, currentRoot);
      return target ? anchor(target, text, token.title) : text;
    },
  },
});

/** `workspaceRoot`: the session's folder, which relative and absolute file links must stay inside. */
export function markdownToHtml(markdown: string, workspaceRoot?: string): string {
  currentRoot = workspaceRoot;
  try {
    return marked.parse(markdown, { async: false }) as string;
  } finally {
    currentRoot = undefined;
  }
}
