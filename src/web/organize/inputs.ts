import { ApiError } from '../../errors.js';
import { h } from '../html.js';

/**
 * Form fields that can carry the API's own refusal beside them: the message is tied to the field
 * (aria-describedby, aria-invalid) and the field takes the focus, so a person who cannot see the
 * page hears what was wrong where it was wrong. The organiser and note pages share these.
 */

/** A refusal of a form: the API's error code and description, and the field it is about (if one). */
export interface Problem {
  readonly code: number;
  readonly message: string;
  readonly field?: string | undefined;
}

export function problemFrom(err: ApiError, field: string | undefined): Problem {
  return { code: err.code, message: err.desc, field };
}

/** What every field of these forms takes. */
interface Common {
  readonly name: string;
  readonly label: string;
  readonly hint?: string | undefined;
  readonly problem?: Problem | undefined;
  readonly autofocus?: boolean;
  /** The id of a text elsewhere on the page that says this field's rule (one said once for several fields). */
  readonly describedBy?: string | undefined;
}

function parts(f: Common): { id: string; before: string; attrs: string } {
  const id = `f-${f.name}`;
  const mine = f.problem?.field === f.name ? f.problem : undefined;
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${h(f.hint)}</span>` : '';
  const error = mine ? `<span class="field-error" id="${id}-error">${h(mine.message)} (error ${mine.code})</span>` : '';
  const described = [f.describedBy ?? '', f.hint ? `${id}-hint` : '', mine ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attrs = [
    `id="${id}"`,
    `name="${h(f.name)}"`,
    described ? `aria-describedby="${described}"` : '',
    mine ? 'aria-invalid="true"' : '',
    // The field the refusal names takes the focus; otherwise the form's first field, if asked.
    mine || (f.autofocus && !f.problem) ? 'autofocus' : '',
  ].filter(Boolean);
  return { id, before: `<label for="${id}">${h(f.label)}</label>${hint}${error}`, attrs: attrs.join(' ') };
}

export function textInput(
  f: Common & { value: string; required?: boolean; type?: 'text' | 'number' | 'date' | 'datetime-local'; inputMode?: 'decimal' | 'numeric' | 'email' | 'tel' | 'url'; step?: string; maxChars?: number },
): string {
  const { before, attrs } = parts(f);
  const extra = [f.required ? 'required' : '', f.inputMode ? `inputmode="${f.inputMode}"` : '', f.step ? `step="${f.step}"` : '', f.maxChars ? `maxlength="${f.maxChars}"` : '']
    .filter(Boolean)
    .join(' ');
  return `${before}<input ${attrs} type="${f.type ?? 'text'}" value="${h(f.value)}"${extra ? ` ${extra}` : ''}>`;
}

export function textBox(f: Common & { value: string; rows?: number }): string {
  const { before, attrs } = parts(f);
  // A line break right after the tag is dropped by the HTML parser: written, so that a text
  // beginning with one keeps it.
  return `${before}<textarea ${attrs}${f.rows ? ` rows="${f.rows}"` : ''}>\n${h(f.value)}</textarea>`;
}

export function choiceOf(f: Common & { value: string; options: ReadonlyArray<readonly [string, string]> }): string {
  const { before, attrs } = parts(f);
  const options = f.options.map(([v, text]) => `<option value="${h(v)}"${v === f.value ? ' selected' : ''}>${h(text)}</option>`).join('');
  return `${before}<select ${attrs}>${options}</select>`;
}

/** A checkbox: unticked, a browser sends nothing, which the routes read as 0. */
export function tickBox(f: Common & { checked: boolean }): string {
  const id = `f-${f.name}`;
  const mine = f.problem?.field === f.name ? f.problem : undefined;
  const error = mine ? `<span class="field-error" id="${id}-error">${h(mine.message)} (error ${mine.code})</span>` : '';
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${h(f.hint)}</span>` : '';
  const described = [f.hint ? `${id}-hint` : '', mine ? `${id}-error` : ''].filter(Boolean).join(' ');
  return `<label class="check" for="${id}"><input type="checkbox" id="${id}" name="${h(f.name)}" value="1"${f.checked ? ' checked' : ''}${
    described ? ` aria-describedby="${described}"` : ''
  }${mine ? ' aria-invalid="true" autofocus' : f.autofocus && !f.problem ? ' autofocus' : ''}> ${h(f.label)}</label>${hint}${error}`;
}

/** The summary above a refused form. Without a field it takes the focus itself (a field that has one takes it instead). */
export function problemSummary(problem: Problem | undefined, what: string): string {
  if (!problem) return '';
  const focus = problem.field ? '' : ' tabindex="-1" autofocus';
  return `<div class="error" role="alert" id="problem"${focus}><p>${h(what)}: ${h(problem.message)} (error ${problem.code}).</p></div>`;
}
