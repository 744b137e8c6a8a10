// The agent's elicitations in the session view: a form built from its restricted schema (validated as
// the person types and again by the host), or a link shown with its host that the host opens after a
// click. Accept / Decline / Cancel. Every text from the agent is rendered as text, never as markup.

import { html, nothing, type TemplateResult } from 'lit';
import { initialValues, normalizeSchema, validateValues, type ElicitationField, type ElicitationFormView, type ElicitationValue, type ElicitationValues } from '../shared/elicitationForm';
import type { ElicitationAction, ElicitationView } from '../shared/sessionView';
import type { ViewActions } from './viewActions';

interface FormState {
  values: ElicitationValues;
  /** Errors are shown once the person tried to accept, or for a field they have changed. */
  touched: Set<string>;
  submitted: boolean;
  /** Answered: a second click (or Enter and a click) sends nothing more. */
  sent: boolean;
  /** A link the person opened: the view now waits for the agent. */
  opened: boolean;
}

/** Per elicitation: what the person has entered so far (kept across renders, dropped when it closes). */
export class ElicitationForms {
  private readonly states = new Map<string, FormState>();

  state(requestId: string, form?: ElicitationFormView): FormState {
    let s = this.states.get(requestId);
    if (!s) {
      s = { values: form ? initialValues(form) : {}, touched: new Set(), submitted: false, sent: false, opened: false };
      this.states.set(requestId, s);
    }
    return s;
  }

  /** Forgets the states of elicitations that are no longer open. */
  prune(open: readonly ElicitationView[]): void {
    const ids = new Set(open.map((e) => e.requestId));
    for (const id of this.states.keys()) if (!ids.has(id)) this.states.delete(id);
  }
}

/** The value of an input as the form's field type wants it; undefined when empty. */
export function coerce(field: ElicitationField, raw: string | boolean | string[]): ElicitationValue | undefined {
  switch (field.type) {
    case 'boolean':
      return raw === true;
    case 'number':
    case 'integer':
      return typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : undefined;
    case 'multi':
      return Array.isArray(raw) ? raw : undefined;
    default:
      return typeof raw === 'string' && raw !== '' ? raw : undefined;
  }
}

/** The content sent on Accept: only fields with a value. */
export function contentOf(values: ElicitationValues): ElicitationValues {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== ''));
}

export function elicitationsView(list: readonly ElicitationView[] | undefined, forms: ElicitationForms, actions: ViewActions, rerender: () => void): TemplateResult {
  if (!list || list.length === 0) return html`<div id="elicitations"></div>`;
  forms.prune(list);
  const answer = (e: ElicitationView, action: ElicitationAction, content?: ElicitationValues) => {
    const s = forms.state(e.requestId);
    if (s.sent) return;
    s.sent = true;
    actions.post({ type: 'elicitation', sessionId: actions.sessionId(), requestId: e.requestId, action, ...(content ? { content } : {}) });
  };
  return html`<div id="elicitations">${list.map((e) => (e.mode === 'url' ? urlTemplate(e, forms, actions, answer, rerender) : formTemplate(e, forms, answer, rerender)))}</div>`;
}

type Answer = (e: ElicitationView, action: ElicitationAction, content?: ElicitationValues) => void;

function urlTemplate(e: Extract<ElicitationView, { mode: 'url' }>, forms: ForwardRef, actions: ViewActions, answer: Answer, rerender: () => void): TemplateResult {
  const s = forms.state(e.requestId);
  return html`<div class="elicitation" data-request-id=${e.requestId} data-mode="url" role="dialog" aria-labelledby=${`el-msg-${e.requestId}`}>
    <div class="elicitation-title"><span class="codicon codicon-link-external"></span> The agent asks you to open a link</div>
    <div class="elicitation-message" id=${`el-msg-${e.requestId}`}>${e.message}</div>
    <div class="elicitation-url">Site: <strong class="elicitation-host">${e.host}</strong><div class="elicitation-full-url"><code>${e.url}</code></div></div>
    ${s.opened ? html`<div class="elicitation-waiting" role="status">Waiting for the agent to confirm you finished there…</div>` : nothing}
    <div class="elicitation-buttons">
      <button type="button" class="button elicitation-open" @click=${() => { s.opened = true; actions.post({ type: 'openElicitationUrl', requestId: e.requestId }); rerender(); }}>Open ${e.host}</button>
      <button type="button" class="button elicitation-decline secondary" @click=${() => answer(e, 'decline')}>Decline</button>
      <button type="button" class="button elicitation-cancel secondary" @click=${() => answer(e, 'cancel')}>Cancel</button>
    </div>
  </div>`;
}

type ForwardRef = ElicitationForms;

function formTemplate(e: Extract<ElicitationView, { mode: 'form' }>, forms: ElicitationForms, answer: Answer, rerender: () => void): TemplateResult {
  const normalized = normalizeSchema(e.schema);
  if (!normalized.ok) {
    return html`<div class="elicitation" data-request-id=${e.requestId} data-mode="form" role="alert">
      <div class="elicitation-message">${e.message}</div>
      <div class="elicitation-error">This form cannot be shown: ${normalized.reason}.</div>
      <div class="elicitation-buttons"><button type="button" class="button elicitation-cancel secondary" @click=${() => answer(e, 'cancel')}>Cancel</button></div>
    </div>`;
  }
  const form = normalized.form;
  const s = forms.state(e.requestId, form);
  const errors = validateValues(form, s.values);
  const shown = (name: string) => (s.submitted || s.touched.has(name) ? errors[name] : undefined);
  const set = (field: ElicitationField, raw: string | boolean | string[]) => {
    const v = coerce(field, raw);
    if (v === undefined) delete s.values[field.name];
    else s.values[field.name] = v;
    s.touched.add(field.name);
    rerender();
  };
  const submit = (ev: Event) => {
    ev.preventDefault();
    s.submitted = true;
    if (Object.keys(validateValues(form, s.values)).length > 0) {
      rerender();
      return;
    }
    answer(e, 'accept', contentOf(s.values));
  };
  return html`<form class="elicitation" data-request-id=${e.requestId} data-mode="form" aria-labelledby=${`el-msg-${e.requestId}`} novalidate @submit=${submit}>
    <div class="elicitation-title"><span class="codicon codicon-question"></span> ${form.title ?? 'The agent asks for input'}</div>
    <div class="elicitation-message" id=${`el-msg-${e.requestId}`}>${e.message}</div>
    ${form.description ? html`<div class="elicitation-description">${form.description}</div>` : nothing}
    ${form.fields.map((f) => fieldTemplate(e.requestId, f, s.values[f.name], shown(f.name), set))}
    <div class="elicitation-buttons">
      <button type="button" class="button elicitation-accept" @click=${submit}>Accept</button>
      <button type="button" class="button elicitation-decline secondary" @click=${() => answer(e, 'decline')}>Decline</button>
      <button type="button" class="button elicitation-cancel secondary" @click=${() => answer(e, 'cancel')}>Cancel</button>
    </div>
  </form>`;
}

function fieldTemplate(requestId: string, f: ElicitationField, value: ElicitationValue | undefined, error: string | undefined, set: (f: ElicitationField, raw: string | boolean | string[]) => void): TemplateResult {
  const id = `el-${requestId}-${f.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const describedBy = [f.description ? `${id}-desc` : '', error ? `${id}-err` : ''].filter(Boolean).join(' ') || nothing;
  const label = html`<label for=${id}>${f.title}${f.required ? html`<span class="required" aria-hidden="true"> *</span>` : nothing}</label>`;
  const extras = html`${f.description ? html`<div class="field-description" id=${`${id}-desc`}>${f.description}</div>` : nothing}
    ${error ? html`<div class="field-error" id=${`${id}-err`} role="alert">${error}</div>` : nothing}`;
  switch (f.type) {
    case 'boolean':
      return html`<div class="elicitation-field field-boolean" data-field=${f.name}>
        <input type="checkbox" id=${id} name=${f.name} .checked=${value === true} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${describedBy}
          @change=${(ev: Event) => set(f, (ev.target as HTMLInputElement).checked)} /> ${label}${extras ? html`<div class="field-extras">${extras}</div>` : nothing}</div>`;
    case 'enum':
      return html`<div class="elicitation-field" data-field=${f.name}>${label}
        <select id=${id} name=${f.name} ?required=${f.required} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${describedBy}
          @change=${(ev: Event) => set(f, (ev.target as HTMLSelectElement).value)}>
          <option value="" ?selected=${value === undefined}>—</option>
          ${f.options.map((o) => html`<option value=${o.value} ?selected=${value === o.value}>${o.title}</option>`)}
        </select>${extras}</div>`;
    case 'multi': {
      const chosen = Array.isArray(value) ? value : [];
      return html`<fieldset class="elicitation-field" data-field=${f.name} aria-describedby=${describedBy}><legend>${f.title}${f.required ? ' *' : ''}</legend>
        ${f.options.map((o, i) => html`<label class="multi-option"><input type="checkbox" id=${`${id}-${i}`} .checked=${chosen.includes(o.value)}
          @change=${(ev: Event) => set(f, (ev.target as HTMLInputElement).checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))} /> ${o.title}</label>`)}
        ${extras}</fieldset>`;
    }
    case 'number':
    case 'integer':
      return html`<div class="elicitation-field" data-field=${f.name}>${label}
        <input type="number" id=${id} name=${f.name} step=${f.type === 'integer' ? '1' : 'any'} min=${f.minimum ?? nothing} max=${f.maximum ?? nothing}
          .value=${typeof value === 'number' && Number.isFinite(value) ? String(value) : ''} ?required=${f.required} aria-invalid=${error ? 'true' : 'false'} aria-describedby=${describedBy}
          @input=${(ev: Event) => set(f, (ev.target as HTMLInputElement).value)} />${extras}</div>`;
    case 'string': {
      const type = f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : f.format === 'date' ? 'date' : 'text';
      return html`<div class="elicitation-field" data-field=${f.name}>${label}
        <input type=${type} id=${id} name=${f.name} maxlength=${f.maxLength} .value=${typeof value === 'string' ? value : ''} ?required=${f.required}
          placeholder=${f.format === 'date-time' ? 'YYYY-MM-DDTHH:MM' : nothing}
          aria-invalid=${error ? 'true' : 'false'} aria-describedby=${describedBy}
          @input=${(ev: Event) => set(f, (ev.target as HTMLInputElement).value)} />${f.pattern ? html`<div class="field-description">Expected pattern: <code>${f.pattern}</code></div>` : nothing}${extras}</div>`;
    }
  }
}
