import type { FakeMessage } from '../fake-outbox.js';
import { escapeHtml as e } from './escape-html.js';
import type {
  FakeInboxDialIn,
  FakeInboxDialInSession,
  FakeInboxSource,
  FakeInboxUssdSession,
  FakeInboxWebhook,
} from './fake-inbox-source.js';

const channelNames: Readonly<Record<FakeMessage['channel'], string>> = {
  sms: 'SMS',
  whatsapp: 'WhatsApp',
  voice: 'Voice call',
  ussd: 'USSD',
};

/** `12:04:05 UTC`, in a `<time>` element a reader can parse. */
const time = (at: number) => {
  const iso = new Date(at).toISOString();
  return `<time datetime="${iso}">${iso.slice(11, 19)} UTC</time>`;
};

/** Origin and path only: a webhook URL's query often holds a token, and the page is for looking at. */
const shownUrl = (url: string) => {
  if (!URL.canParse(url)) return '(an invalid URL)';
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

/** An id for elements about one number, stable across renders (so focus and anchors survive an update). */
const idOf = (prefix: string, value: string) => `${prefix}-${value.replace(/[^A-Za-z0-9]/g, '')}`;

function messagesSection(messages: readonly FakeMessage[]): string {
  const byNumber = new Map<string, FakeMessage[]>();
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    const list = byNumber.get(message.to) ?? [];
    list.push(message);
    byNumber.set(message.to, list);
  }
  const numbers = [...byNumber.entries()]
    .map(([to, list]) => {
      const heading = idOf('number', to);
      const items = list
        .map(
          (message) => `<li class="message">
<p class="meta"><span class="channel channel-${e(message.channel)}">${channelNames[message.channel]}</span>${
            message.from === undefined ? '' : ` <span>from ${e(message.from)}</span>`
          } ${time(message.at)}</p>
<p class="text">${e(message.text)}</p>${
            message.code === undefined
              ? ''
              : `\n<p class="code-line">Code <strong class="code" data-code>${e(message.code)}</strong></p>`
          }
</li>`,
        )
        .join('\n');
      return `<section class="number" aria-labelledby="${heading}">
<h3 id="${heading}">${e(to)} <span class="count">(${list.length} ${list.length === 1 ? 'message' : 'messages'})</span></h3>
<ol class="messages" reversed>${items}</ol>
</section>`;
    })
    .join('\n');
  return `<section aria-labelledby="messages-heading">
<h2 id="messages-heading">Messages</h2>
${numbers === '' ? '<p class="empty">No message yet. Start a verification and the code its phone receives appears here.</p>' : numbers}
</section>`;
}

const sessionStatus: Readonly<Record<FakeInboxUssdSession['status'], string>> = {
  pending: 'waiting for the user to dial',
  success: 'dialled: right OTP entered',
  failed: 'dialled: wrong OTP entered',
};

function ussdSection(sessions: readonly FakeInboxUssdSession[], now: number): string {
  const rows = sessions
    .map((session) => {
      const expired = session.status === 'pending' && session.expiresAt <= now;
      const status = expired ? 'expired' : sessionStatus[session.status];
      const label = idOf('ussd', session.phoneNumber);
      const actions =
        session.status === 'pending' && !expired
          ? `<form method="post" action="/__inbox/ussd/dial" class="dial" data-focus-after="${label}">
<input type="hidden" name="phoneNumber" value="${e(session.phoneNumber)}">
<button type="submit" name="outcome" value="success" id="${label}-dial" aria-describedby="${label}">Dial and enter the OTP</button>
<button type="submit" name="outcome" value="failed" class="secondary" id="${label}-fail" aria-describedby="${label}">Enter a wrong OTP</button>
</form>`
          : '';
      return `<li class="session">
<p id="${label}" tabindex="-1">${e(session.phoneNumber)}: dial <strong class="ussd-code">${e(session.ussdCode)}</strong>, enter <strong class="code">${e(session.otp)}</strong></p>
<p class="meta status-${expired ? 'expired' : e(session.status)}">${e(status)} · expires ${time(session.expiresAt)}</p>
${actions}
</li>`;
    })
    .join('\n');
  return `<section aria-labelledby="ussd-heading">
<h2 id="ussd-heading">USSD sessions</h2>
${rows === '' ? '<p class="empty">No USSD session yet.</p>' : `<ol class="sessions">${rows}</ol>`}
</section>`;
}

const outcomeNames: Readonly<Record<FakeInboxWebhook['outcome'], string>> = {
  sending: 'sending',
  delivered: 'delivered',
  failed: 'gave up',
  'not-sent': 'not sent: the fake has no webhook URL',
};

/** What each state of a dial-in session means, for its line and for the announcement after a dial or reply. */
const dialInStates: Readonly<Record<FakeInboxDialInSession['state'], string>> = {
  open: 'waiting for a reply',
  ended: 'ended by the application',
  'http-error': 'ended: the application answered an HTTP error',
  malformed: 'ended: the answer began with neither CON nor END',
  unreachable: 'ended: the callback URL did not answer',
  expired: 'expired',
};

/** What the page announces once a dial or a reply is answered. */
export function dialInOutcome(session: FakeInboxDialInSession): string {
  const state = dialInStates[session.state];
  return `${state[0]!.toUpperCase()}${state.slice(1)}.${session.screen === '' ? '' : ` Screen: ${session.screen}`}`;
}

/**
 * The dial form: outside the content the page swaps on each change, so what the developer types stays. Its
 * result line shows how the application answered (the script writes it; without the script the page reloads).
 */
function dialForm(dialIn: FakeInboxDialIn): string {
  return `<section aria-labelledby="dial-heading">
<h2 id="dial-heading">Dial</h2>
<form method="post" action="/__inbox/ussd/dial-in" class="dial dial-in">
<p class="field"><label for="dial-phone">Phone number</label>
<input id="dial-phone" name="phoneNumber" type="tel" autocomplete="off" required placeholder="+254711000001" aria-describedby="dial-phone-hint">
<span id="dial-phone-hint" class="hint">The phone that dials, with + and its country code: the number the flow is for.</span></p>
<p class="field"><label for="dial-code">Code</label>
<input id="dial-code" name="code" type="text" autocomplete="off" required value="${e(dialIn.serviceCode)}" aria-describedby="dial-code-hint">
<span id="dial-code-hint" class="hint">The service code ${e(dialIn.serviceCode)}, or the code a dial-in flow gave, its reference before the # (${e(dialIn.serviceCode.slice(0, -1))}*583921#).</span></p>
<p class="actions"><button type="submit" id="dial-submit">Dial</button></p>
<p class="result" id="dial-result"></p>
</form>
</section>`;
}

function dialInSection(dialIn: FakeInboxDialIn): string {
  const callbackUrl = dialIn.callbackUrl();
  const rows = dialIn
    .sessions()
    .map((session) => {
      const label = idOf('session', session.sessionId);
      const reply =
        session.state === 'open'
          ? `<form method="post" action="/__inbox/ussd/reply" class="dial" data-focus-after="${label}">
<input type="hidden" name="sessionId" value="${e(session.sessionId)}">
<p class="field"><label for="${label}-input">Reply</label>
<input id="${label}-input" name="input" type="text" autocomplete="off" required aria-describedby="${label}"></p>
<p class="actions"><button type="submit" id="${label}-send">Send</button></p>
<p class="result" id="${label}-result"></p>
</form>`
          : '';
      const typed =
        session.inputs.length === 0
          ? ''
          : ` · typed ${session.inputs.map((input) => `<code>${e(input)}</code>`).join(', ')}`;
      return `<li class="session">
<p id="${label}" tabindex="-1">${e(session.phoneNumber)} dialled <strong class="ussd-code">${e(session.code)}</strong>: <span class="screen">${
        session.screen === '' ? '(no screen)' : e(session.screen)
      }</span></p>
<p class="meta status-${session.state}">${e(dialInStates[session.state])} · ${time(session.at)}${typed}</p>
${reply}
</li>`;
    })
    .join('\n');
  const target =
    callbackUrl === undefined
      ? '<p class="meta">No callback URL yet: a dial fails until the fake has one (<code>callbackUrl</code>, or <code>--webhook-url</code> of <code>verikit sandbox</code>).</p>'
      : `<p class="meta">Sessions are posted to <code>${e(shownUrl(callbackUrl))}</code>.</p>`;
  return `<section aria-labelledby="dial-in-heading">
<h2 id="dial-in-heading">USSD sessions</h2>
${target}
${rows === '' ? '<p class="empty">No session yet. Dial above, as the phone would.</p>' : `<ol class="sessions">${rows}</ol>`}
</section>`;
}

function webhooksSection(webhooks: readonly FakeInboxWebhook[], title: string | undefined): string {
  const items = webhooks
    .map((webhook) => {
      const attempts = webhook.attempts
        .map((attempt) => {
          const answer = attempt.status === undefined ? (attempt.error ?? 'no answer') : `HTTP ${attempt.status}`;
          const next = attempt.retryInMs === undefined ? '' : `, retry in ${Math.ceil(attempt.retryInMs / 1000)} s`;
          const said = attempt.answer === undefined ? '' : ` <q class="answer">${e(attempt.answer)}</q>`;
          return `<li>Attempt ${attempt.attempt} ${time(attempt.at)}: ${e(answer)}${said}${next}</li>`;
        })
        .join('');
      return `<li class="webhook">
<p class="meta"><span class="outcome outcome-${e(webhook.outcome)}">${e(outcomeNames[webhook.outcome])}</span> <code>${e(webhook.id)}</code>${
        webhook.url === undefined ? '' : ` to <code>${e(shownUrl(webhook.url))}</code>`
      }</p>
<pre class="payload">${e(JSON.stringify(webhook.payload, null, 2))}</pre>
${attempts === '' ? '' : `<ol class="attempts">${attempts}</ol>`}
</li>`;
    })
    .join('\n');
  return `<section aria-labelledby="webhooks-heading">
<h2 id="webhooks-heading">${e(title ?? 'Webhooks')}</h2>
${items === '' ? `<p class="empty">${title === undefined ? 'No webhook' : 'Nothing'} sent yet.</p>` : `<ol class="webhooks">${items}</ol>`}
</section>`;
}

/**
 * The inbox's main content, rendered on the server with every value escaped: the page's first paint and what
 * its script swaps in on each change. `data-messages` is the count the script announces new messages from.
 */
export function renderInboxMain(source: FakeInboxSource, now = Date.now()): string {
  const sessions = source.ussdSessions?.();
  // With sessions shown on their own, USSD prompts and screens are not messages.
  const messages =
    sessions === undefined && source.dialIn === undefined
      ? source.outbox.messages
      : source.outbox.messages.filter((m) => m.channel !== 'ussd');
  const parts = [messagesSection(messages)];
  if (sessions !== undefined) parts.push(ussdSection(sessions, now));
  if (source.dialIn !== undefined) parts.push(dialInSection(source.dialIn));
  if (source.webhooks !== undefined) parts.push(webhooksSection(source.webhooks(), source.webhooksTitle));
  return `<div id="inbox-content" data-messages="${messages.length}">\n${parts.join('\n')}\n</div>`;
}

/** The whole page: the header, the main content, and a live region the script announces changes in. */
export function renderInboxPage(source: FakeInboxSource, url: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inbox · verikit ${e(source.name)} fake</title>
<link rel="stylesheet" href="/__inbox/inbox.css">
<script type="module" src="/__inbox/inbox.js"></script>
</head>
<body>
<header>
<h1>Inbox</h1>
<p>What the phones received from the ${e(source.name)} fake at <code>${e(url)}</code>. <span id="live" class="live">Reload for new messages.</span></p>
</header>
<main id="inbox">
${source.dialIn === undefined ? '' : `${dialForm(source.dialIn)}\n`}${renderInboxMain(source)}
</main>
<div id="announcer" class="visually-hidden" role="status" aria-live="polite"></div>
</body>
</html>`;
}
