import { h, hiddenFields } from './html.js';

/** A labelled input. `hint` is tied to the input (aria-describedby) so screen readers read it too. */
export function field(f: {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'number';
  value?: string | undefined;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  autofocus?: boolean;
  min?: number;
  max?: number;
}): string {
  const id = `f-${f.name}`;
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${h(f.hint)}</span>` : '';
  const attrs = [
    `id="${id}"`,
    `name="${h(f.name)}"`,
    `type="${f.type ?? 'text'}"`,
    f.value !== undefined && f.type !== 'password' ? `value="${h(f.value)}"` : '',
    f.autocomplete ? `autocomplete="${h(f.autocomplete)}"` : '',
    f.required ? 'required' : '',
    f.autofocus ? 'autofocus' : '',
    f.min !== undefined ? `min="${f.min}"` : '',
    f.max !== undefined ? `max="${f.max}"` : '',
    f.hint ? `aria-describedby="${id}-hint"` : '',
  ].filter(Boolean);
  return `<label for="${id}">${h(f.label)}</label>${hint}<input ${attrs.join(' ')}>`;
}

/** A labelled multi-line text field. */
export function textArea(f: { name: string; label: string; value?: string | undefined; hint?: string; required?: boolean; autofocus?: boolean }): string {
  const id = `f-${f.name}`;
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${h(f.hint)}</span>` : '';
  return `<label for="${id}">${h(f.label)}</label>${hint}<textarea id="${id}" name="${h(f.name)}"${f.required ? ' required' : ''}${f.autofocus ? ' autofocus' : ''}${
    f.hint ? ` aria-describedby="${id}-hint"` : ''
  } spellcheck="false">\n${h(f.value ?? '')}</textarea>`;
}

export function select(f: { name: string; label: string; value: string; options: ReadonlyArray<readonly [string, string]>; hint?: string }): string {
  const id = `f-${f.name}`;
  const hint = f.hint ? `<span class="hint" id="${id}-hint">${h(f.hint)}</span>` : '';
  const options = f.options.map(([v, text]) => `<option value="${h(v)}"${v === f.value ? ' selected' : ''}>${h(text)}</option>`).join('');
  return `<label for="${id}">${h(f.label)}</label>${hint}<select id="${id}" name="${h(f.name)}"${f.hint ? ` aria-describedby="${id}-hint"` : ''}>${options}</select>`;
}

export function checkbox(f: { name: string; label: string; checked: boolean }): string {
  return `<label class="check"><input type="checkbox" name="${h(f.name)}" value="1"${f.checked ? ' checked' : ''}> ${h(f.label)}</label>`;
}

/** A form that posts to `action` with the CSRF token; `hidden` adds fields. */
export function form(action: string, csrf: string, body: string, opts: { hidden?: ReadonlyArray<readonly [string, string]>; multipart?: boolean; label?: string } = {}): string {
  return `<form method="post" action="${h(action)}"${opts.multipart ? ' enctype="multipart/form-data"' : ''}${opts.label ? ` aria-label="${h(opts.label)}"` : ''}>${hiddenFields([
    ['_csrf', csrf],
    ...(opts.hidden ?? []),
  ])}${body}</form>`;
}

/** A form of one button (revoke, delete, rotate): the button says what it does. */
export function buttonForm(action: string, csrf: string, text: string, opts: { hidden?: ReadonlyArray<readonly [string, string]>; danger?: boolean } = {}): string {
  return form(action, csrf, `<button type="submit"${opts.danger ? ' class="danger"' : ''}>${h(text)}</button>`, opts);
}

/**
 * A posted text with its line breaks as stored (\n): browsers send a text area's, and every
 * field's on submission, as CRLF.
 */
export function storedLines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
