/**
 * The inbox page's style and script, served as files so the page's Content-Security-Policy allows no inline
 * code. The script follows `/__inbox/events` (server-sent events) and swaps in the server-rendered content on
 * each change, keeping focus (and what is typed in a field) where it was; it sends the dial and reply forms
 * with fetch and shows how the fake answered. Without it the page still works: the forms post and come back,
 * a reload shows what is new.
 */
export const inboxScript = `const content = () => document.getElementById('inbox-content');
const live = document.getElementById('live');
const announcer = document.getElementById('announcer');
let running;
let again = false;
// Where focus goes when the focused control is gone after a swap (a dial button once its session is dialled).
let fallback;

async function swap() {
  const response = await fetch('/__inbox/content', { headers: { accept: 'text/html' }, cache: 'no-store' });
  if (!response.ok) return;
  const html = await response.text();
  const current = content();
  const before = Number(current.dataset.messages);
  const active = document.activeElement;
  const focused = active && active.id;
  // What is typed in a reply field stays, with the caret, across the swap.
  const typed = [...current.querySelectorAll('input[id]:not([type=hidden])')].map((input) => [input.id, input.value]);
  const caret = active instanceof HTMLInputElement ? [active.selectionStart, active.selectionEnd] : undefined;
  const template = document.createElement('template');
  template.innerHTML = html;
  const next = template.content.firstElementChild;
  current.replaceWith(next);
  for (const [id, value] of typed) {
    const input = document.getElementById(id);
    if (input instanceof HTMLInputElement) input.value = value;
  }
  const refocus = focused && document.getElementById(focused);
  if (refocus) {
    refocus.focus();
    if (caret && refocus instanceof HTMLInputElement) refocus.setSelectionRange(caret[0], caret[1]);
  } else if (focused && fallback && current.contains(active)) {
    document.getElementById(fallback)?.focus();
    fallback = undefined;
  }
  const added = Number(next.dataset.messages) - before;
  if (added > 0) announcer.textContent = added === 1 ? '1 new message' : added + ' new messages';
}

/** Swaps in the new content; a change during a swap makes one more, and every caller waits for the last. */
function refresh() {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      do {
        again = false;
        await swap();
      } while (again);
    } finally {
      running = undefined;
    }
  })();
  return running;
}

const events = new EventSource('/__inbox/events');
events.addEventListener('open', () => { live.textContent = 'Updates live.'; void refresh(); });
events.addEventListener('change', () => void refresh());
events.addEventListener('error', () => { live.textContent = 'Reconnecting…'; });

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains('dial')) return;
  event.preventDefault();
  const body = new URLSearchParams(new FormData(form, event.submitter));
  const result = form.querySelector('.result');
  if (result) result.textContent = 'Dialling…';
  const response = await fetch(form.action, { method: 'POST', body, headers: { accept: 'application/json' } });
  const message = response.ok
    ? ((await response.json()).message ?? 'Dialled.')
    : 'Could not dial: ' + (await response.text());
  fallback = form.dataset.focusAfter;
  await refresh();
  // Shown beside the form when it is still there (the dial form always is), and announced.
  const shown = result && result.id && document.getElementById(result.id);
  if (shown) shown.textContent = message;
  announcer.textContent = message;
});
`;

/** Readable on a phone and in dark mode; focus always visible; codes large enough to read at a glance. */
export const inboxStyle = `:root { color-scheme: light dark; --muted: #5a5a5a; --accent: #0b57d0; --line: #d0d0d0; }
@media (prefers-color-scheme: dark) { :root { --muted: #b0b0b0; --accent: #8ab4f8; --line: #444; } }
* { box-sizing: border-box; }
body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; }
h1 { margin: 0 0 .25rem; }
h2 { border-bottom: 1px solid var(--line); padding-bottom: .25rem; margin-top: 2rem; }
h3 { font-size: 1.1rem; margin: 1rem 0 .5rem; }
.count, .meta, .empty { color: var(--muted); }
ol { padding-left: 0; list-style: none; }
li.message, li.session, li.webhook { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .75rem; margin: .5rem 0; }
.meta { margin: 0; font-size: .9rem; }
li.session p { margin: .25rem 0; }
.field { display: flex; flex-direction: column; gap: .25rem; margin: 0; flex: 1 1 14rem; }
.field label { font-weight: 600; }
.hint { color: var(--muted); font-size: .9rem; }
input[type=text], input[type=tel] { font: inherit; padding: .5rem; min-height: 2.75rem; border: 1px solid var(--muted); border-radius: .375rem; background: Canvas; color: CanvasText; }
.actions { margin: 0; align-self: flex-end; }
.result { flex-basis: 100%; margin: 0; font-weight: 600; }
.result:empty { display: none; }
.screen { font-family: ui-monospace, monospace; white-space: pre-wrap; }
q.answer { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.text { margin: .25rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.code, .ussd-code { font: 700 1.4rem/1.2 ui-monospace, monospace; letter-spacing: .1em; }
.code-line { margin: .25rem 0 0; }
.channel, .outcome { display: inline-block; font-weight: 600; margin-right: .5rem; }
.outcome-delivered, .status-success { color: #137333; }
.outcome-failed, .status-failed, .status-expired, .status-http-error, .status-malformed, .status-unreachable { color: #c5221f; }
@media (prefers-color-scheme: dark) { .outcome-delivered, .status-success { color: #81c995; } .outcome-failed, .status-failed, .status-expired, .status-http-error, .status-malformed, .status-unreachable { color: #f28b82; } }
.payload { overflow-x: auto; font-size: .85rem; margin: .25rem 0; }
.attempts { font-size: .9rem; }
code { overflow-wrap: anywhere; }
form.dial { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
button { font: inherit; padding: .5rem 1rem; min-height: 2.75rem; border-radius: .375rem; border: 1px solid var(--accent); background: var(--accent); color: Canvas; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
`;
