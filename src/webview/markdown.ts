// Sanitized markdown for the transcript: markdownHtml.ts renders, DOMPurify strips whatever got
// through. DOMPurify hands back the DOM it checked (not a string lit would parse a second time), and
// one result is cached per entry: the transcript re-renders the same entries often, and the first
// paint of a long session renders a few dozen at once.

import DOMPurify from 'dompurify';
import { noChange } from 'lit';
import { Directive, directive } from 'lit/directive.js';
import { markdownToHtml } from './markdownHtml';

const fileAttrs = ['data-vigil-file', 'data-vigil-line'];

const purifyConfig = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math', 'img', 'video', 'audio', 'source', 'picture'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'src', 'background', 'poster'],
  ALLOW_DATA_ATTR: false,
  // The two data attributes of a workspace-file link (paths are not URLs, so they skip the URL check).
  ADD_ATTR: fileAttrs,
  ADD_URI_SAFE_ATTR: [...fileAttrs, 'tabindex'],
  RETURN_DOM_FRAGMENT: true,
};

let purify: ReturnType<typeof DOMPurify> | undefined;

/**
 * Vigil's own DOMPurify: its configuration is parsed once (not on every call) and, with its hook, it
 * touches no other user of the library. Second line behind markdownHtml.ts: no href survives unless
 * it is http(s) or mailto.
 */
function sanitizer(): ReturnType<typeof DOMPurify> {
  if (purify) return purify;
  purify = DOMPurify(window);
  purify.setConfig(purifyConfig);
  purify.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'href' && !/^(?:https?:\/\/|mailto:)/i.test(data.attrValue)) data.keepAttr = false;
  });
  return purify;
}

/** The sanitized DOM of `html`, owned by DOMPurify's inert document until it is inserted. */
export function sanitizeToFragment(html: string): DocumentFragment {
  const result = sanitizer().sanitize(html) as unknown;
  if (!(result instanceof DocumentFragment)) throw new Error('DOMPurify did not return a fragment: the markdown is not shown');
  return result;
}

const cache = new Map<string, { source: string; root: string | undefined; fragment: DocumentFragment }>();
const cacheLimit = 500;

/**
 * A fresh copy of the sanitized markdown of entry `key`. A streaming entry replaces its own cached
 * result instead of piling up.
 */
export function renderMarkdown(key: string, markdown: string, workspaceRoot?: string): DocumentFragment {
  let hit = cache.get(key);
  if (!hit || hit.source !== markdown || hit.root !== workspaceRoot) {
    hit = { source: markdown, root: workspaceRoot, fragment: sanitizeToFragment(markdownToHtml(markdown, workspaceRoot)) };
    cache.delete(key);
    if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
    cache.set(key, hit);
  }
  return hit.fragment.cloneNode(true) as DocumentFragment;
}

/** `${markdown(id, text, root)}` in a template: the entry's sanitized markdown, left alone while its text is unchanged. */
class MarkdownDirective extends Directive {
  private shown: { key: string; source: string; root: string | undefined } | undefined;

  render(key: string, source: string, workspaceRoot: string | undefined): DocumentFragment | typeof noChange {
    const s = this.shown;
    if (s && s.key === key && s.source === source && s.root === workspaceRoot) return noChange;
    this.shown = { key, source, root: workspaceRoot };
    return renderMarkdown(key, source, workspaceRoot);
  }
}

export const markdown = directive(MarkdownDirective);
