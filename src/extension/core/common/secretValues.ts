// Which configured values are secrets. An environment variable or a header is one when its name says so (a
// key, a token, a password…) or when the person listed it; a URL anywhere carries its user-info and its
// secret-named query values as secrets. Everything else (a model name, a path, a plain URL) is ordinary text:
// treated as a secret, it would be cut out of every message, header and tool output that mentions it.

/**
 * Names that say secret, case-insensitive: `*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*PASSWD*`,
 * `*PASSPHRASE*`, `*PASS`, `*CREDENTIAL*`, `*AUTH*`, `*COOKIE*`, `*PRIVATE*`. `AUTH` followed by `OR` counts
 * only as `AUTHORIZATION`/`AUTHORISATION`: `GIT_AUTHOR_NAME` holds a person's name.
 */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PASS$|CREDENTIAL|AUTH(?!OR(?!I[SZ]))|COOKIE|PRIVATE/i;

/** Names that say where something is (`SSH_AUTH_SOCK`, `API_KEY_FILE`, `TOKEN_URL`): a location, not the secret. */
const LOCATION_NAME = /_(FILE|PATH|DIR|SOCK|SOCKET|URL|URI|HOME)$/i;

/** An absolute URL with a scheme (`https://…`, `postgres://…`); `user:pass` alone is not one. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;

/** An `Authorization`-style value: a scheme, then the credential. */
const SCHEMED = /^([A-Za-z][\w-]*)\s+(\S+)$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !LOCATION_NAME.test(name);
}

/**
 * The credentials a URL carries: its user name and password (as written and decoded) and the values of its
 * secret-named query parameters (`?api_key=…`). Nothing for a value that is not an absolute URL.
 */
export function urlCredentials(value: string): string[] {
  const trimmed = value.trim();
  if (!URL_LIKE.test(trimmed)) return [];
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const part of [url.username, url.password]) if (part) found.push(part, safeDecode(part));
  for (const [name, item] of url.searchParams) if (item && isSecretName(name)) found.push(item);
  return found;
}

/** The names in `env` that say secret, and every name in `declared` (set in `env` or inherited). */
export function secretEnvNames(env: Readonly<Record<string, string | undefined>>, declared: Iterable<string> = []): string[] {
  return [...new Set([...Object.keys(env).filter(isSecretName), ...declared])];
}

/**
 * The secret values of an environment: those of secret names and of the names listed in `declared`
 * (which may also be inherited variables), and the credentials inside any URL value.
 */
export function envSecrets(env: Readonly<Record<string, string | undefined>>, declared: Iterable<string> = []): string[] {
  const listed = new Set(declared);
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') continue;
    if (listed.has(name) || isSecretName(name)) found.push(value);
    else found.push(...urlCredentials(value));
  }
  return found;
}

/**
 * The secret values of HTTP headers: a secret-named one (`Authorization`, `X-Api-Key`, `Cookie`) whole, its
 * credential apart from its scheme (`Bearer …`, and a `Basic` pair's password), each cookie's value; and the
 * credentials of any URL value.
 */
export function headerSecrets(headers: Iterable<{ name: string; value: string }>): string[] {
  const found: string[] = [];
  for (const { name, value } of headers) {
    if (!isSecretName(name)) {
      found.push(...urlCredentials(value));
      continue;
    }
    found.push(value);
    const schemed = SCHEMED.exec(value.trim());
    if (schemed) {
      found.push(schemed[2]);
      if (schemed[1].toLowerCase() === 'basic') found.push(...basicPassword(schemed[2]));
    }
    if (/cookie/i.test(name)) for (const pair of value.split(';')) found.push(pair.slice(pair.indexOf('=') + 1).trim());
  }
  return found;
}

function basicPassword(encoded: string): string[] {
  const pair = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  return colon >= 0 ? [pair.slice(colon + 1)] : [];
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
