// Sanitized markdown for the transcript: markdownHtml.ts renders, DOMPurify strips whatever got
// through. One cached result per entry, since the transcript re-renders the same entries often.

import DOMPurify from 'dompurify';
import { markdownToHtml } from './markdownHtml';

const purifyConfig = {
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
  ALLOW_DATA_ATTR: false,
};

const cache = new Map<string, { source: string; html: string }>();
const cacheLimit = 500;

/** `key` names the entry; a streaming entry replaces its own cached result instead of piling up. */
export function renderMarkdown(key: string, markdown: string): string {
  const hit = cache.get(key);
  if (hit && hit.source === markdown) return hit.html;
  const html = sanitizeHtml(markdownToHtml(markdown));
  cache.delete(key);
  if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
  cache.set(key, { source: markdown, html });
  return html;
}

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, purifyConfig) as string;
}
