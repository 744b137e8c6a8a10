// An agent's elicitation form, reduced to the restricted shapes ACP allows and bounded, plus the one
// validation of a person's answers that both the session view (as they type) and the host (again,
// before anything reaches the agent) run.

export const elicitationLimits = {
  fields: 50,
  options: 100,
  nameChars: 100,
  titleChars: 200,
  descriptionChars: 1_000,
  messageChars: 4_000,
  /** Longest string a field accepts, whatever the agent's maxLength says. */
  valueChars: 10_000,
  urlChars: 2_048,
} as const;

export interface ElicitationOption {
  value: string;
  title: string;
}

interface FieldBase {
  name: string;
  title: string;
  description?: string;
  required: boolean;
}

export type ElicitationField =
  | (FieldBase & { type: 'string'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength: number; pattern?: string; default?: string })
  | (FieldBase & { type: 'number' | 'integer'; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { type: 'boolean'; default?: boolean })
  | (FieldBase & { type: 'enum'; options: ElicitationOption[]; default?: string })
  | (FieldBase & { type: 'multi'; options: ElicitationOption[]; minItems?: number; maxItems?: number; default?: string[] });

export interface ElicitationFormView {
  title?: string;
  description?: string;
  fields: ElicitationField[];
}

export type ElicitationValue = string | number | boolean | string[];
export type ElicitationValues = Record<string, ElicitationValue>;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v !== '' ? clip(v, max) : undefined);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined);
const finite = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Reads an agent's `requestedSchema`; a shape Vigil cannot show faithfully is refused with the reason. */
export function normalizeSchema(schema: unknown): { ok: true; form: ElicitationFormView } | { ok: false; reason: string } {
  if (!isObject(schema)) return { ok: false, reason: 'the requested schema is not an object' };
  if (schema.type !== undefined && schema.type !== 'object') return { ok: false, reason: 'the requested schema is not of type "object"' };
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return { ok: false, reason: '"properties" is not an object' };
  const names = Object.keys(properties);
  if (names.length > elicitationLimits.fields) return { ok: false, reason: `the form has ${names.length} fields; Vigil shows at most ${elicitationLimits.fields}` };
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const fields: ElicitationField[] = [];
  for (const name of names) {
    if (name.length > elicitationLimits.nameChars) return { ok: false, reason: `a field name is longer than ${elicitationLimits.nameChars} characters` };
    const field = normalizeField(name, properties[name], required.has(name));
    if (typeof field === 'string') return { ok: false, reason: `field "${clip(name, 40)}": ${field}` };
    fields.push(field);
  }
  for (const r of required) if (!(r in properties)) return { ok: false, reason: `required field "${clip(r, 40)}" is not defined` };
  return { ok: true, form: { title: text(schema.title, elicitationLimits.titleChars), description: text(schema.description, elicitationLimits.descriptionChars), fields } };
}

function normalizeField(name: string, raw: unknown, required: boolean): ElicitationField | string {
  if (!isObject(raw)) return 'its schema is not an object';
  const base: FieldBase = { name, title: text(raw.title, elicitationLimits.titleChars) ?? clip(name, elicitationLimits.titleChars), description: text(raw.description, elicitationLimits.descriptionChars), required };
  switch (raw.type) {
    case 'string': {
      const options = optionsOf(raw.enum, raw.oneOf);
      if (typeof options === 'string') return options;
      if (options) {
        const def = typeof raw.default === 'string' && options.some((o) => o.value === raw.default) ? raw.default : undefined;
        return { ...base, type: 'enum', options, default: def };
      }
      const format = raw.format === 'email' || raw.format === 'uri' || raw.format === 'date' || raw.format === 'date-time' ? raw.format : undefined;
      if (raw.format !== undefined && raw.format !== null && format === undefined) return `unknown string format "${clip(String(raw.format), 40)}"`;
      const minLength = count(raw.minLength);
      const maxLength = Math.min(count(raw.maxLength) ?? elicitationLimits.valueChars, elicitationLimits.valueChars);
      if (minLength !== undefined && minLength > maxLength) return 'minLength is larger than maxLength';
      const pattern = text(raw.pattern, 500);
      const def = typeof raw.default === 'string' ? raw.default.slice(0, maxLength) : undefined;
      return { ...base, type: 'string', format, minLength, maxLength, pattern, default: def };
    }
    case 'number':
    case 'integer': {
      const minimum = finite(raw.minimum);
      const maximum = finite(raw.maximum);
      if (minimum !== undefined && maximum !== undefined && minimum > maximum) return 'minimum is larger than maximum';
      return { ...base, type: raw.type, minimum, maximum, default: finite(raw.default) };
    }
    case 'boolean':
      return { ...base, type: 'boolean', default: typeof raw.default === 'boolean' ? raw.default : undefined };
    case 'array': {
      const items = raw.items;
      if (!isObject(items)) return 'a multi-select needs "items"';
      const options = optionsOf(items.enum, items.anyOf);
      if (typeof options === 'string') return options;
      if (!options) return 'a multi-select needs "items.enum" or "items.anyOf"';
      const values = new Set(options.map((o) => o.value));
      const def = Array.isArray(raw.default) ? raw.default.filter((d): d is string => typeof d === 'string' && values.has(d)) : undefined;
      const minItems = count(raw.minItems);
      const maxItems = count(raw.maxItems);
      if (minItems !== undefined && maxItems !== undefined && minItems > maxItems) return 'minItems is larger than maxItems';
      return { ...base, type: 'multi', options, minItems, maxItems, default: def };
    }
    default:
      return `type "${clip(String(raw.type), 40)}" is not one Vigil can show`;
  }
}

/** `enum` (plain values) or `oneOf`/`anyOf` (titled values); undefined when neither is given. */
function optionsOf(plain: unknown, titled: unknown): ElicitationOption[] | undefined | string {
  let options: ElicitationOption[] | undefined;
  if (Array.isArray(titled)) {
    options = [];
    for (const o of titled) {
      if (!isObject(o) || typeof o.const !== 'string') return 'an option has no string "const"';
      options.push({ value: o.const, title: text(o.title, elicitationLimits.titleChars) ?? clip(o.const, elicitationLimits.titleChars) });
    }
  } else if (Array.isArray(plain)) {
    if (!plain.every((v): v is string => typeof v === 'string')) return 'an enum value is not a string';
    options = plain.map((v) => ({ value: v, title: clip(v, elicitationLimits.titleChars) }));
  }
  if (!options) return undefined;
  if (options.length === 0) return 'a choice offers no options';
  if (options.length > elicitationLimits.options) return `a choice offers ${options.length} options; Vigil shows at most ${elicitationLimits.options}`;
  if (options.some((o) => o.value.length > elicitationLimits.valueChars)) return 'an option value is too long';
  return options;
}

/** The values a form starts with: the agent's defaults. */
export function initialValues(form: ElicitationFormView): ElicitationValues {
  const values: ElicitationValues = {};
  for (const f of form.fields) if (f.default !== undefined) values[f.name] = f.default;
  return values;
}

const emailShape = /^[^\s@]+@[^\s@]+$/;
const dateShape = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Checks answers against the form: one message per field that is wrong, none when all are right.
 * Unknown names are refused too (the host never forwards what the form did not ask for). An agent's
 * `pattern` is shown but not enforced: running an agent's regular expression could hang the view.
 */
export function validateValues(form: ElicitationFormView, values: Record<string, unknown>): Record<string, string> {
  const errors: Record<string, string> = {};
  const known = new Set(form.fields.map((f) => f.name));
  for (const name of Object.keys(values)) if (!known.has(name)) errors[name] = 'This field is not part of the form.';
  for (const f of form.fields) {
    const v = values[f.name];
    const empty = v === undefined || v === '' || (Array.isArray(v) && v.length === 0 && f.type !== 'multi');
    if (empty) {
      if (f.required) errors[f.name] = 'Required.';
      continue;
    }
    const problem = fieldProblem(f, v);
    if (problem) errors[f.name] = problem;
  }
  return errors;
}

function fieldProblem(f: ElicitationField, v: unknown): string | undefined {
  switch (f.type) {
    case 'string': {
      if (typeof v !== 'string') return 'Enter text.';
      if (f.minLength !== undefined && v.length < f.minLength) return `At least ${f.minLength} characters.`;
      if (v.length > f.maxLength) return `At most ${f.maxLength} characters.`;
      if (f.format === 'email' && !emailShape.test(v)) return 'Enter an email address.';
      if (f.format === 'uri' && !isUri(v)) return 'Enter a URI (e.g. https://example.com).';
      if (f.format === 'date' && (!dateShape.test(v) || Number.isNaN(Date.parse(v)))) return 'Enter a date as YYYY-MM-DD.';
      if (f.format === 'date-time' && Number.isNaN(Date.parse(v))) return 'Enter a date and time.';
      return undefined;
    }
    case 'number':
    case 'integer': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'Enter a number.';
      if (f.type === 'integer' && !Number.isInteger(v)) return 'Enter a whole number.';
      if (f.minimum !== undefined && v < f.minimum) return `At least ${f.minimum}.`;
      if (f.maximum !== undefined && v > f.maximum) return `At most ${f.maximum}.`;
      return undefined;
    }
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'Choose yes or no.';
    case 'enum':
      return typeof v === 'string' && f.options.some((o) => o.value === v) ? undefined : 'Choose one of the options.';
    case 'multi': {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && f.options.some((o) => o.value === x))) return 'Choose from the options.';
      if (new Set(v).size !== v.length) return 'An option is chosen twice.';
      if (f.required && v.length === 0) return 'Required.';
      if (f.minItems !== undefined && v.length < f.minItems) return `Choose at least ${f.minItems}.`;
      if (f.maxItems !== undefined && v.length > f.maxItems) return `Choose at most ${f.maxItems}.`;
      return undefined;
    }
  }
}

function isUri(v: string): boolean {
  try {
    return new URL(v).protocol.length > 1;
  } catch {
    return false;
  }
}

/** An elicitation URL the person may be sent to: http(s) only, shown with its host. */
export function checkElicitationUrl(raw: unknown): { ok: true; url: string; host: string } | { ok: false; reason: string } {
  if (typeof raw !== 'string' || raw.length > elicitationLimits.urlChars) return { ok: false, reason: 'the URL is missing or too long' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'the URL is not valid' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `only http and https links are opened, not ${clip(url.protocol, 20)}` };
  if (url.username || url.password) return { ok: false, reason: 'the URL carries a user name or password' };
  return { ok: true, url: url.href, host: url.host };
}
