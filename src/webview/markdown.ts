// Sanitized markdown for the transcript: markdownHtml.ts renders, DOMPurify strips whatever got
// through. One cached result per entry, since the transcript re-renders the same entries often.

import DOMPurify from 'dompurify';
import { markdownToHtml } from './markdownHtml';

const fileAttrs = ['data-vigil-file', 'data-vigil-line'];

const purifyConfig = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math', 'img', 'video', 'audio', 'source', 'picture'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'src', 'background', 'poster'],
  ALLOW_DATA_ATTR: false,
  // The two data attributes of a workspace-file link (paths are not URLs, so they skip the URL check).
  ADD_ATTR: fileAttrs,
  ADD_URI_SAFE_ATTR: [...fileAttrs, 'tabindex'],
};

let hooked = false;

/** Second line behind markdownHtml.ts: no href survives unless it is http(s) or mailto. */
function hookLinks(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'href' && !/^(?:https?:\/\/|mailto:)/i.test(data.attrValue)) data.keepAttr = false;
  });
}

const cache = new Map<string, { source: string; root: string | undefined; html: string }>();
const cacheLimit = 500;

/** `key` names the entry; a streaming entry replaces its own cached result instead of piling up. */
export function renderMarkdown(key: string, markdown: string, workspaceRoot?: string): string {
  const hit = cache.get(key);
  if (hit && hit.source === markdown && hit.root === workspaceRoot) return hit.html;
  const html = sanitizeHtml(markdownToHtml(markdown, workspaceRoot));
  cache.delete(key);
  if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
  cache.set(key, { source: markdown, root: workspaceRoot, html });
  return html;
}

export function sanitizeHtml(html: string): string {
  hookLinks();
  return DOMPurify.sanitize(html, purifyConfig) as string;
}
