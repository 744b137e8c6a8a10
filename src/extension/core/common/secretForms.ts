// The forms in which a secret is echoed besides itself, as providers, agents and shells realistically write
// it: quoted into a URL or into JSON, base64-encoded on its own, upper- or lower-cased. The redactor searches
// for each form as for the secret itself (plain string search: still no pattern built from a secret).

/**
 * GNU `base64` wraps its output every 76 characters, 57 bytes of input: a long key piped through it (the
 * Anthropic ones are over 100 characters) comes out in lines, each the base64 of its own 57 bytes.
 */
const BASE64_LINE_BYTES = 57;

/** The secret and its encoded forms, without duplicates (the secret first). */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret, secret.toUpperCase(), secret.toLowerCase()]);
  for (const uri of urlForms(secret)) forms.add(uri);
  for (const json of jsonForms(secret)) forms.add(json);
  for (const base64 of base64Forms(secret)) forms.add(base64);
  return [...forms];
}

/** `encodeURIComponent`'s form, and the one that keeps `/` (Python's `quote`, a URL's path). */
function urlForms(secret: string): string[] {
  let encoded: string;
  try {
    encoded = encodeURIComponent(secret);
  } catch {
    // A lone surrogate cannot be percent-encoded; nothing could have echoed it that way either.
    return [];
  }
  return [encoded, encoded.replace(/%2F/g, '/')];
}

/** Inside a JSON string: escaped as `JSON.stringify` does, with `/` as `\/` (PHP, some Java), with non-ASCII as `\uXXXX` (Python). */
function jsonForms(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  const ascii = escaped.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [escaped, escaped.replace(/\//g, '\\/'), ascii];
}

/**
 * The base64 of the secret alone (standard and URL-safe alphabets), cut to whole 3-byte groups: that prefix is
 * the same whatever follows the secret (`echo $KEY | base64` encodes a newline after it), and it leaves at most
 * the secret's last two bytes in the characters after it. A long secret also gets each 57-byte line's form.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const whole = (from: number, to: number) => bytes.subarray(from, to - ((to - from) % 3)).toString('base64');
  const all = whole(0, bytes.length);
  const forms = [all, all.replace(/\+/g, '-').replace(/\//g, '_')];
  if (bytes.length > BASE64_LINE_BYTES) {
    for (let at = 0; at < bytes.length; at += BASE64_LINE_BYTES) forms.push(whole(at, Math.min(bytes.length, at + BASE64_LINE_BYTES)));
  }
  return forms;
}
