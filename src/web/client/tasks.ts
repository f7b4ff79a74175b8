/// <reference lib="dom" />
/**
 * The progressive enhancement of the task pages, served as a file of this server (CSP
 * `script-src 'self'`). Everything works without it (forms and Post/Redirect/Get); it adds the
 * live preview of quick add (the server's own reading, from /tasks/preview.json), a refresh of the
 * list when an app changed the account (polling /tasks/stamps.json), and keys for the common
 * actions (`?` lists them). No framework: a few listeners on the server's HTML.
 */

/** PUBLIC_URL's path prefix and a slash: this file is served at <base>/assets/tasks.js. */
const base = new URL('../', import.meta.url).pathname;
const POLL_MS = 3000;

function $(selector: string, root: ParentNode = document): HTMLElement | null {
  return root.querySelector<HTMLElement>(selector);
}

// ---- Quick add: the live preview ----------------------------------------------------------

function previewQuickAdd(): void {
  const input = $('#qa') as HTMLInputElement | null;
  const out = $('#qa-preview');
  if (!input || !out) return;
  let timer: number | undefined;
  let asked = 0;
  const show = async (): Promise<void> => {
    const line = input.value;
    const mine = ++asked;
    if (line.trim() === '') {
      out.textContent = '';
      return;
    }
    const res = await fetch(`${base}tasks/preview.json?line=${encodeURIComponent(line)}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!res.ok || mine !== asked) return;
    const p = (await res.json()) as { title: string; parts: string[]; problem?: string };
    out.replaceChildren();
    const strong = document.createElement('strong');
    strong.textContent = p.title === '' ? '(no title yet)' : p.title;
    out.append('Will save: ', strong, ' ');
    for (const part of p.parts) {
      const chip = document.createElement('span');
      chip.className = 'chip';
      chip.textContent = part;
      out.append(chip);
    }
    if (p.problem) {
      const problem = document.createElement('span');
      problem.className = 'field-error';
      problem.textContent = p.problem;
      out.append(problem);
    }
  };
  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void show().catch(() => undefined), 120);
  });
  if (input.value !== '') void show().catch(() => undefined);
}

// ---- Polling: edits made elsewhere appear without a reload --------------------------------

async function refreshList(): Promise<boolean> {
  const list = $('#task-list');
  if (!list) return false;
  const res = await fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } });
  if (!res.ok) return false;
  const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
  const fresh = $('#task-list', doc);
  if (!fresh) return false;
  // What the person was doing survives: ticked boxes, open or closed subtasks, the focus.
  const ticked = new Set([...list.querySelectorAll<HTMLInputElement>('input[name=id]:checked')].map((i) => i.value));
  const closed = new Set([...list.querySelectorAll<HTMLDetailsElement>('li.task > .body > details:not([open])')].map((d) => d.closest('li')?.dataset['id']));
  const focusedId = (document.activeElement?.closest('li.task') as HTMLElement | null)?.dataset['id'];
  const focusedKey = document.activeElement?.getAttribute('data-key') ?? 'title';
  const bulkValues = [...list.querySelectorAll<HTMLSelectElement>('.bulk select')].map((s) => [s.name, s.value] as const);
  list.replaceWith(fresh);
  for (const box of fresh.querySelectorAll<HTMLInputElement>('input[name=id]')) box.checked = ticked.has(box.value);
  for (const d of fresh.querySelectorAll<HTMLDetailsElement>('li.task > .body > details')) if (closed.has(d.closest('li')?.dataset['id'])) d.open = false;
  for (const [name, value] of bulkValues) {
    const select = fresh.querySelector<HTMLSelectElement>(`.bulk select[name="${name}"]`);
    if (select) select.value = value;
  }
  // The tabs only when their numbers changed: a link being clicked is not swapped under the pointer.
  const views = $('nav.views', doc);
  const shown = $('nav.views');
  if (views && shown && views.innerHTML !== shown.innerHTML) shown.replaceWith(views);
  if (focusedId) {
    const li = fresh.querySelector<HTMLElement>(`li.task[data-id="${focusedId}"]`);
    const target = li && (focusedKey === 'title' ? li.querySelector<HTMLElement>('a.title') : li.querySelector<HTMLElement>(`[data-key="${focusedKey}"]`));
    target?.focus();
  }
  return true;
}

function poll(): void {
  const list = $('#task-list');
  if (!list) return;
  let busy = false;
  const note = $('#fresh');
  window.setInterval(() => {
    if (busy || document.hidden) return;
    busy = true;
    void (async () => {
      try {
        const res = await fetch(`${base}tasks/stamps.json`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
        if (!res.ok) return;
        const { stamp } = (await res.json()) as { stamp: string };
        const current = $('#task-list')?.dataset['stamp'];
        if (stamp !== current && (await refreshList()) && note) {
          note.hidden = false;
          note.textContent = 'The list was updated with changes made elsewhere.';
        }
      } catch {
        // Offline for a moment: the next tick tries again.
      } finally {
        busy = false;
      }
    })();
  }, POLL_MS);
}

// ---- Keys ------------------------------------------------------------------------------------

const FOCUS_KEY = 'tickler.focus';

function currentTask(): HTMLElement | null {
  return (document.activeElement?.closest('li.task') as HTMLElement | null) ?? null;
}

function tasks(): HTMLElement[] {
  return [...document.querySelectorAll<HTMLElement>('li.task')];
}

function focusTask(li: HTMLElement | undefined): void {
  li?.querySelector<HTMLElement>('a.title')?.focus();
  li?.scrollIntoView({ block: 'nearest' });
}

/** Presses a button of the task in focus; after the page comes back, the focus returns to that task. */
function press(key: string): boolean {
  const li = currentTask();
  const button = li?.querySelector<HTMLButtonElement>(`button[data-key="${key}"]`);
  if (!li || !button) return false;
  const next = tasks()[tasks().indexOf(li) + 1]?.dataset['id'];
  sessionStorage.setItem(FOCUS_KEY, JSON.stringify({ id: li.dataset['id'], next }));
  button.click();
  return true;
}

function restoreFocus(): void {
  const saved = sessionStorage.getItem(FOCUS_KEY);
  if (!saved) return;
  sessionStorage.removeItem(FOCUS_KEY);
  const { id, next } = JSON.parse(saved) as { id?: string; next?: string };
  const li = $(`li.task[data-id="${id}"]`) ?? $(`li.task[data-id="${next}"]`);
  if (li) focusTask(li);
}

function keys(): void {
  let pendingG = false;
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement;
    const typing = target.matches('input:not([type=checkbox]), textarea, select');
    if (typing) {
      if (e.key === 'Escape') target.blur();
      return;
    }
    const dialog = $('#keys') as HTMLDialogElement | null;
    if (dialog?.open) return;
    if (pendingG) {
      pendingG = false;
      const view = { h: 'hotlist', a: 'all', c: 'completed', s: 'starred', r: 'recent' }[e.key];
      if (view) {
        location.href = `${base}?view=${view}`;
        e.preventDefault();
      }
      return;
    }
    const list = tasks();
    const li = currentTask();
    let handled = true;
    switch (e.key) {
      case '?': dialog?.showModal(); break;
      case 'n': $('#qa')?.focus(); break;
      case '/': $('#q')?.focus(); break;
      case 'g': pendingG = true; break;
      case 'j': focusTask(li ? list[list.indexOf(li) + 1] : list[0]); break;
      case 'k': focusTask(li ? list[Math.max(0, list.indexOf(li) - 1)] : list[0]); break;
      case 'x': handled = press('x'); break;
      case 's': handled = press('s'); break;
      case '#': case 'Delete': handled = press('#'); break;
      case 'K': handled = press('K'); break;
      case 'J': handled = press('J'); break;
      case 'e': {
        const link = li?.querySelector<HTMLAnchorElement>('a.title');
        if (link) location.href = link.href;
        else handled = false;
        break;
      }
      case ' ': {
        const box = li?.querySelector<HTMLInputElement>('input[name=id]');
        if (box && target !== box) box.checked = !box.checked;
        else handled = false;
        break;
      }
      case 'u': {
        const undo = $('form[action$="/tasks/undo"] button') as HTMLButtonElement | null;
        if (undo) undo.click();
        else handled = false;
        break;
      }
      default: handled = false;
    }
    if (handled) e.preventDefault();
  });
}

previewQuickAdd();
poll();
keys();
restoreFocus();
