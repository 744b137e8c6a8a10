// Whether the editor has told Vigil the person's choice of agent yet.
//
// The extension host learns user settings only from the workbench, which reads the user settings file once
// when the window opens and turns a failed read into empty settings, with no change event until the file
// changes. Such a window reports "no vigil.agent" while the file names one, and a prompt would go to the
// built-in agent. So before an agent is chosen, the settings that decide where a prompt goes are compared
// with the file itself: while they differ, Vigil cannot know the choice and holds the prompt.

import { parse, type ParseError } from 'jsonc-parser';

/** The settings that decide which agent and which model a prompt reaches. */
export const AGENT_CHOICE_KEYS = ['vigil.agent', 'vigil.model.provider', 'vigil.model.name', 'vigil.model.baseUrl'] as const;

/** Larger than any settings file a person keeps; a bigger one is not read (and gives no evidence). */
export const SETTINGS_FILE_BYTE_LIMIT = 4 * 1024 * 1024;

/** Values of `keys` as the settings file's text sets them, as VS Code reads them; undefined when the text is not a settings object. */
export function choicesInSettingsText(text: string, keys: readonly string[] = AGENT_CHOICE_KEYS): Map<string, unknown> | undefined {
  const errors: ParseError[] = [];
  const root: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  // VS Code ignores a file it cannot parse the same way: it gives no evidence either way.
  if (errors.length > 0 || !isPlainObject(root)) return undefined;
  const tree = valueTree(root);
  return new Map(keys.map((key) => [key, valueAt(tree, key)]));
}

/**
 * The keys whose value in the file differs from the user value the editor reports (`userValueOf`),
 * compared as JSON. Empty when they agree or the file gives no evidence.
 */
export function disagreeingChoices(fileChoices: Map<string, unknown> | undefined, userValueOf: (key: string) => unknown): string[] {
  if (!fileChoices) return [];
  return [...fileChoices].filter(([key, value]) => canonical(value) !== canonical(userValueOf(key))).map(([key]) => key);
}

/**
 * VS Code's value tree: each top-level key is split at its dots (`"vigil.model.name"` and
 * `"vigil": { "model": { "name" } }` mean the same); keys inside a value are kept whole, later keys win.
 */
function valueTree(root: Record<string, unknown>): Record<string, unknown> {
  const tree: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(root)) {
    // Language overrides ("[python]") never hold these settings.
    if (key.startsWith('[')) continue;
    const segments = key.split('.');
    let node = tree;
    let blocked = false;
    for (const segment of segments.slice(0, -1)) {
      const next = node[segment];
      if (next === undefined) node = node[segment] = Object.create(null) as Record<string, unknown>;
      else if (isPlainObject(next)) node = next;
      else {
        // VS Code drops a key whose path runs through a value that is not an object.
        blocked = true;
        break;
      }
    }
    if (!blocked) node[segments[segments.length - 1]] = value;
  }
  return tree;
}

function valueAt(tree: Record<string, unknown>, key: string): unknown {
  let node: unknown = tree;
  for (const segment of key.split('.')) {
    if (!isPlainObject(node) || !Object.prototype.hasOwnProperty.call(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

/** JSON with object keys sorted, so the same value written in another order compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isPlainObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v) ?? 'undefined';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
