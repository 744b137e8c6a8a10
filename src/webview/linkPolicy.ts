// Which links in model markdown stay links: http(s), mailto, and files inside the session's workspace
// folder (opened in the editor through a host message the host validates again). Everything else —
// vscode:, command:, javascript:, data:, file: outside, protocol-relative, any other scheme — is text.

export type LinkTarget = { kind: 'web'; href: string } | { kind: 'file'; path: string; line?: number };

const maxHrefChars = 4_096;

/** Classifies a markdown link target; `workspaceRoot` is the session's folder (absolute, `/` or `\` separated). */
export function classifyHref(rawHref: string, workspaceRoot?: string): LinkTarget | undefined {
  if (rawHref.length > maxHrefChars) return undefined;
  // Browsers drop leading/trailing C0 controls and spaces and ignore tabs and newlines anywhere in a
  // URL ("java\tscript:"); judge the same string the browser would use.
  let href = '';
  // eslint-disable-next-line no-control-regex
  for (const ch of rawHref.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')) {
    if (ch !== '\t' && ch !== '\n' && ch !== '\r') href += ch;
  }
  // Any other control or invisible formatting character: not a link anyone meant.
  // eslint-disable-next-line no-control-regex
  if (href === '' || /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/.test(href)) return undefined;
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(href)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return webLink(href, true);
  if (scheme === 'mailto') return webLink(href, false);
  if (scheme === 'file') return fileUrlLink(href, workspaceRoot);
  // A Windows drive path ("C:/x", "c:\x") parses as a one-letter scheme.
  if (scheme !== undefined && !(scheme.length === 1 && /^[a-zA-Z]:[\\/]/.test(href))) return undefined;
  // Protocol-relative ("//host", "\\host", "/\host") would leave the webview for another origin; a
  // leading backslash is read as a slash by browsers, so it is never a plain name either.
  if (/^[\\/]{2}/.test(href) || href.startsWith('\\')) return undefined;
  return pathLink(href, workspaceRoot);
}

function webLink(href: string, needsHost: boolean): LinkTarget | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (needsHost && (url.hostname === '' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(href))) return undefined;
  // User info ("https://good.example@evil.example") shows one host and opens another.
  if (url.username || url.password) return undefined;
  // The normalized form is what is rendered, so the browser opens exactly what was checked.
  return { kind: 'web', href: url.href };
}

function fileUrlLink(href: string, root: string | undefined): LinkTarget | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  if (url.host !== '' && url.host !== 'localhost') return undefined;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  // file:///C:/x → "/C:/x"
  if (/^\/[a-zA-Z]:\//.test(path)) path = path.slice(1);
  return withinRoot(path, lineOf(url.hash), root);
}

/** A relative path (to the workspace folder) or an absolute one, with an optional `#L12` line. */
function pathLink(href: string, root: string | undefined): LinkTarget | undefined {
  const hashAt = href.indexOf('#');
  const rawPath = hashAt >= 0 ? href.slice(0, hashAt) : href;
  const line = hashAt >= 0 ? lineOf(href.slice(hashAt)) : undefined;
  if (rawPath === '') return undefined;
  let path: string;
  try {
    // marked percent-encodes link targets; the decoded path is what names the file.
    path = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(path)) return undefined;
  return withinRoot(path, line, root);
}

function lineOf(hash: string): number | undefined {
  const match = /^#L(\d{1,7})(?:-L?\d{1,7})?$/i.exec(hash);
  const line = match ? Number(match[1]) : undefined;
  return line !== undefined && line >= 1 ? line : undefined;
}

function withinRoot(path: string, line: number | undefined, root: string | undefined): LinkTarget | undefined {
  if (!root) return undefined;
  const windows = /^[a-zA-Z]:[\\/]/.test(root);
  const normalRoot = normalize(root, windows);
  if (normalRoot === undefined) return undefined;
  const absolute = windows ? /^[a-zA-Z]:[\\/]/.test(path) : path.startsWith('/');
  // "\x" or "C:x" on Windows are drive-relative: not a path anyone should link to.
  if (windows && !absolute && (/^[\\/]/.test(path) || /^[a-zA-Z]:/.test(path))) return undefined;
  const full = normalize(absolute ? path : `${normalRoot}/${path}`, windows);
  if (full === undefined) return undefined;
  const same = windows ? (a: string, b: string) => a.toLowerCase() === b.toLowerCase() : (a: string, b: string) => a === b;
  const prefix = normalRoot.endsWith('/') ? normalRoot : `${normalRoot}/`;
  // Only inside: a `..` component that climbs above the root was resolved away above and fails here; a
  // name like `..env` is an ordinary file inside.
  if (same(full, normalRoot) || !same(full.slice(0, prefix.length), prefix)) return undefined;
  return line !== undefined ? { kind: 'file', path: windows ? full.replace(/\//g, '\\') : full, line } : { kind: 'file', path: windows ? full.replace(/\//g, '\\') : full };
}

/** Lexical normalization with `/` separators; undefined when `..` climbs above the top. */
function normalize(path: string, windows: boolean): string | undefined {
  const unified = windows ? path.replace(/\\/g, '/') : path;
  const drive = windows ? /^[a-zA-Z]:/.exec(unified)?.[0] ?? '' : '';
  const parts: string[] = [];
  for (const part of unified.slice(drive.length).split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return `${drive}/${parts.join('/')}`;
}
