/**
 * The page: sign in by phone (a code by SMS, through a verikit flow and the plugin's proof), or by email and password
 * and then add a verified phone to that account (or change it) the same way, and attach a BVN. Every word comes from a message id (the client's catalogue and the page's own, in English and French);
 * each new screen moves focus to its heading and is spoken once in the one live region; a refused field is marked
 * (`aria-invalid`, `aria-describedby`); a double click sends one code; a reload asks the server who is signed in
 * and which BVN is attached.
 *
 * @module
 */
import { createAuthClient } from 'better-auth/client';
import { verikitAuthClient } from '@verikit/better-auth/client';
import { createFlowClient, FlowClientError, formatMessage, messages, type FlowView } from '@verikit/client';

// The verikit flow routes live below Better Auth's base path; the auth client talks to the plugin's endpoints.
const flows = createFlowClient({ baseUrl: '/api/auth/verikit' });
const authClient = createAuthClient({ plugins: [verikitAuthClient()] });

const en = {
  'page.title': 'Sign in by phone',
  'page.tabTitle': 'Sign in by phone · Better Auth + verikit',
  'page.offline': 'You are offline. Try again when you are back online.',
  'page.online': 'You are back online.',
  'phone.title': 'Your phone number',
  'phone.label': 'Phone number (with country code)',
  'phone.submit': 'Send a code',
  'code.title': 'Enter the code',
  'code.sentTo': 'We sent a code to {phone}.',
  'code.sentForBvn': 'We sent a code to the phone registered for your BVN ({number}).',
  'code.label': 'The code we sent',
  'code.submit': 'Verify',
  'code.wrong': 'That code is not correct.',
  'account.title': 'Signed in',
  'account.email': 'Your email:',
  'account.number': 'Your number:',
  'account.signOut': 'Sign out',
  'account.signedOut': 'Signed out.',
  'bvn.title': 'Add your BVN',
  'bvn.label': 'Your BVN (11 digits)',
  'bvn.submit': 'Verify my BVN',
  'bvn.done': 'BVN verified',
  'bvn.attached': 'BVN verified:',
  'email.title': 'Or use your email',
  'email.label': 'Email',
  'email.password': 'Password (8 characters or more)',
  'email.signIn': 'Sign in with email',
  'email.signUp': 'Create an account',
  'link.addTitle': 'Add your phone number',
  'link.changeTitle': 'Change your phone number',
  'link.label': 'Number to add (with country code)',
  'link.changeLabel': 'New number (with country code)',
  'link.submit': 'Verify this number',
  'link.added': 'Phone number added',
  'link.changed': 'Phone number changed',
  'auth.error.PHONE_NUMBER_TAKEN': 'This phone number is already on another account.',
  'auth.error.INVALID_EMAIL_OR_PASSWORD': 'The email or the password is not correct.',
  'auth.error.USER_ALREADY_EXISTS': 'An account with this email exists already: sign in.',
  'auth.error.USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL': 'An account with this email exists already: sign in.',
  'auth.error.INVALID_EMAIL': 'Check the email address.',
  'auth.error.PASSWORD_TOO_SHORT': 'The password needs 8 characters or more.',
  'auth.error.PROOF_REJECTED': 'The verification could not be confirmed. Verify the number again.',
  'auth.error.SIGN_UP_DISABLED': 'No account has this phone number.',
  'auth.error.IDENTITY_ALREADY_ATTACHED': 'This BVN is already attached to another account.',
  'auth.error.ANOTHER_IDENTITY_ATTACHED': 'Another BVN is already attached to your account.',
  'auth.error.VERIFICATION_UNAVAILABLE': 'Verification is unavailable for a moment. Try again.',
};
const fr: typeof en = {
  'page.title': 'Connexion par téléphone',
  'page.tabTitle': 'Connexion par téléphone · Better Auth + verikit',
  'page.offline': 'Vous êtes hors ligne. Réessayez une fois de nouveau en ligne.',
  'page.online': 'Vous êtes de nouveau en ligne.',
  'phone.title': 'Votre numéro de téléphone',
  'phone.label': "Numéro de téléphone (avec l'indicatif du pays)",
  'phone.submit': 'Envoyer un code',
  'code.title': 'Saisissez le code',
  'code.sentTo': 'Nous avons envoyé un code au {phone}.',
  'code.sentForBvn': 'Nous avons envoyé un code au téléphone enregistré pour votre BVN ({number}).',
  'code.label': 'Le code reçu',
  'code.submit': 'Vérifier',
  'code.wrong': "Ce code n'est pas correct.",
  'account.title': 'Connecté',
  'account.email': 'Votre e-mail :',
  'account.number': 'Votre numéro :',
  'account.signOut': 'Se déconnecter',
  'account.signedOut': 'Déconnecté.',
  'bvn.title': 'Ajoutez votre BVN',
  'bvn.label': 'Votre BVN (11 chiffres)',
  'bvn.submit': 'Vérifier mon BVN',
  'bvn.done': 'BVN vérifié',
  'bvn.attached': 'BVN vérifié :',
  'email.title': 'Ou utilisez votre e-mail',
  'email.label': 'E-mail',
  'email.password': 'Mot de passe (8 caractères ou plus)',
  'email.signIn': 'Se connecter par e-mail',
  'email.signUp': 'Créer un compte',
  'link.addTitle': 'Ajoutez votre numéro de téléphone',
  'link.changeTitle': 'Changez votre numéro de téléphone',
  'link.label': "Numéro à ajouter (avec l'indicatif du pays)",
  'link.changeLabel': "Nouveau numéro (avec l'indicatif du pays)",
  'link.submit': 'Vérifier ce numéro',
  'link.added': 'Numéro de téléphone ajouté',
  'link.changed': 'Numéro de téléphone changé',
  'auth.error.PHONE_NUMBER_TAKEN': 'Ce numéro de téléphone est déjà sur un autre compte.',
  'auth.error.INVALID_EMAIL_OR_PASSWORD': "L'e-mail ou le mot de passe n'est pas correct.",
  'auth.error.USER_ALREADY_EXISTS': 'Un compte existe déjà avec cet e-mail : connectez-vous.',
  'auth.error.USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL': 'Un compte existe déjà avec cet e-mail : connectez-vous.',
  'auth.error.INVALID_EMAIL': "Vérifiez l'adresse e-mail.",
  'auth.error.PASSWORD_TOO_SHORT': 'Le mot de passe doit avoir 8 caractères ou plus.',
  'auth.error.PROOF_REJECTED': "La vérification n'a pas pu être confirmée. Vérifiez à nouveau le numéro.",
  'auth.error.SIGN_UP_DISABLED': "Aucun compte n'a ce numéro de téléphone.",
  'auth.error.IDENTITY_ALREADY_ATTACHED': 'Ce BVN est déjà rattaché à un autre compte.',
  'auth.error.ANOTHER_IDENTITY_ATTACHED': 'Un autre BVN est déjà rattaché à votre compte.',
  'auth.error.VERIFICATION_UNAVAILABLE': 'La vérification est indisponible pour un moment. Réessayez.',
};
const catalogues = { ...messages, en: { ...messages.en, ...en }, fr: { ...messages.fr, ...fr } };
const locale = navigator.languages.map((tag) => tag.toLowerCase().split('-')[0]).find((tag) => tag === 'fr') ?? 'en';
const text = (id: string, params?: Record<string, string>) => formatMessage(id, { locale, catalogues, params });

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The message of a refused field without an id of its own. */
const fieldMessageIds: Readonly<Record<string, string>> = {
  phoneNumber: 'verikit.error.phone_number',
  number: 'verikit.error.invalid_id_number',
};

/** The id of an error's text: the field's own (a refused number), a plugin error's, or the client's catalogue's. */
function errorText(error: unknown, field?: string): string {
  if (FlowClientError.isInstance(error)) {
    const issue = error.issues?.find((candidate) => candidate.field === field);
    if (issue?.messageId !== undefined) return text(issue.messageId);
    // A refused field without an id of its own: the field's message (what a person can do about it).
    if (field !== undefined && Object.hasOwn(fieldMessageIds, field) && (issue !== undefined || error.field === field))
      return text(fieldMessageIds[field]!);
    return text(error.messageId ?? `verikit.error.${error.code}`);
  }
  // A plugin error (Better Auth's `error.code`), or a view's error: never its developer `message`.
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return text('verikit.error.unknown');
  return text(Object.hasOwn(en, `auth.error.${code}`) ? `auth.error.${code}` : `verikit.error.${code}`);
}

/** Shows (or clears, with undefined) a field's error: the text, `aria-invalid` and `aria-describedby` on the field. */
function fieldError(fieldId: string, message: string | undefined): void {
  const field = element<HTMLInputElement>(fieldId);
  const error = element(`${fieldId}-error`);
  error.textContent = message ?? '';
  error.hidden = message === undefined;
  if (message === undefined) {
    field.removeAttribute('aria-invalid');
    field.removeAttribute('aria-describedby');
  } else {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', `${fieldId}-error`);
  }
}

/** Speaks a status once in the page's one live region (the same words twice are spoken twice). */
function say(words: string): void {
  const region = element('status');
  region.textContent = '';
  const span = document.createElement('span');
  span.textContent = words;
  region.append(span);
}

/** Shows a new screen: its heading takes focus and its words are spoken once. */
function arrive(headingId: string, spoken?: string): void {
  const heading = element(headingId);
  heading.focus();
  say(spoken ?? heading.textContent ?? '');
}

/** Runs one request per button at a time: a second click while the first runs sends nothing. */
function once(button: HTMLButtonElement, run: () => Promise<void>): void {
  if (button.getAttribute('aria-disabled') === 'true') return;
  button.setAttribute('aria-disabled', 'true');
  void run().finally(() => button.removeAttribute('aria-disabled'));
}

/** What the code form verifies next: the phone flow at sign-in, then the BVN flow once signed in. */
let pending: { flowId: string; done: (proof: string) => Promise<void> } | undefined;

/** The signed-in user and the identities attached, as the server has them (`GET /api/account`). */
interface Account {
  /** Null for a user who signed up by phone. */
  readonly email: string | null;
  /** Null for an email user who has not added a phone. */
  readonly phoneNumber: string | null;
  readonly identities: ReadonlyArray<{ readonly idType: string; readonly number: string }>;
}

async function showAccount(focus: boolean): Promise<void> {
  const response = await fetch('/api/account');
  if (response.status === 401) return;
  const account = (await response.json()) as Account;
  element('phone-section').hidden = true;
  element('email-section').hidden = true;
  element('code-section').hidden = true;
  element('account').hidden = false;
  element('user-email-line').hidden = account.email === null;
  element('user-email').textContent = account.email ?? '';
  element('user-phone-line').hidden = account.phoneNumber === null;
  element('user-phone').textContent = account.phoneNumber ?? '';
  // An email user adds a phone; a user with one may change it.
  const hasPhone = account.phoneNumber !== null;
  element('link-title').textContent = text(hasPhone ? 'link.changeTitle' : 'link.addTitle');
  element('link-label').textContent = text(hasPhone ? 'link.changeLabel' : 'link.label');
  const bvn = account.identities.find((identity) => identity.idType === 'bvn');
  element('bvn-section').hidden = bvn !== undefined;
  element('bvn-done').hidden = bvn === undefined;
  element('bvn-masked').textContent = bvn?.number ?? '';
  if (focus) arrive('signed-in-title');
}

/** Starts a flow and shows the code form where it belongs (after the form that asked for it). */
async function verify(
  input: Parameters<typeof flows.start>[0],
  field: string,
  done: (proof: string) => Promise<void>,
): Promise<void> {
  // The code form goes after the form that asked for it.
  const after = element(field).closest('section > div, section')!.id;
  fieldError(field, undefined);
  let view: FlowView;
  try {
    view = await flows.start(input);
  } catch (error) {
    return fieldError(field, errorText(error, input.kind === 'identity' ? 'number' : 'phoneNumber'));
  }
  if (view.status !== 'awaiting-code') return fieldError(field, errorText(view.error));
  pending = { flowId: view.id, done };
  const section = element('code-section');
  // The BVN's code goes after "Signed in" and the BVN form; the phone's after the phone form.
  element(after).after(section);
  section.hidden = false;
  element('code-sent').textContent =
    input.kind === 'identity'
      ? text('code.sentForBvn', { number: view.number ?? '' })
      : text('code.sentTo', { phone: view.phoneNumber ?? '' });
  fieldError('code', undefined);
  element<HTMLInputElement>('code').value = '';
  arrive('code-title', `${text('code.title')}. ${element('code-sent').textContent}`);
}

element('phone-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const phoneNumber = element<HTMLInputElement>('phone').value.trim();
  once(element('phone-form').querySelector('button')!, () =>
    verify({ kind: 'phone', phoneNumber }, 'phone', async (proof) => {
      const { error } = await authClient.signIn.phoneProof({ phoneNumber, proof });
      if (error) return fieldError('code', errorText(error));
      await showAccount(true);
    }),
  );
});

element('email-form').addEventListener('submit', (event) => {
  event.preventDefault();
  once(element('email-form').querySelector<HTMLButtonElement>('button[type=submit]')!, () => byEmail('sign-in'));
});

element('sign-up').addEventListener('click', () => {
  once(element<HTMLButtonElement>('sign-up'), () => byEmail('sign-up'));
});

/** Signs in, or up (the email as the name), with the email form's email and password. */
async function byEmail(action: 'sign-in' | 'sign-up'): Promise<void> {
  fieldError('password', undefined);
  const email = element<HTMLInputElement>('email').value.trim();
  const password = element<HTMLInputElement>('password').value;
  const { error } =
    action === 'sign-in'
      ? await authClient.signIn.email({ email, password })
      : await authClient.signUp.email({ email, password, name: email });
  if (error) return fieldError('password', errorText(error));
  element<HTMLInputElement>('password').value = '';
  await showAccount(true);
}

element('link-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const phoneNumber = element<HTMLInputElement>('link-phone').value.trim();
  once(element('link-form').querySelector('button')!, () =>
    verify({ kind: 'phone', phoneNumber }, 'link-phone', async (proof) => {
      const { data, error } = await authClient.phoneNumber.linkProof({ phoneNumber, proof });
      if (error) return fieldError('link-phone', errorText(error));
      element<HTMLInputElement>('link-phone').value = '';
      await showAccount(false);
      arrive('signed-in-title', text(data.changed ? 'link.changed' : 'link.added'));
    }),
  );
});

element('code-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const current = pending;
  if (current === undefined) return;
  const code = element<HTMLInputElement>('code').value.trim();
  once(element('code-form').querySelector('button')!, async () => {
    try {
      const view = await flows.send(current.flowId, { type: 'submit-code', code });
      if (view.status !== 'verified')
        return fieldError('code', view.error?.code === 'code_invalid' ? text('code.wrong') : errorText(view.error));
      fieldError('code', undefined);
      pending = undefined;
      element('code-section').hidden = true;
      await current.done((await flows.proof(current.flowId)).token);
    } catch (error) {
      fieldError('code', errorText(error, 'code'));
    }
  });
});

element('bvn-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const number = element<HTMLInputElement>('bvn').value.trim();
  once(element('bvn-form').querySelector('button')!, () =>
    verify({ kind: 'identity', idType: 'bvn', number }, 'bvn', async (proof) => {
      const { error } = await authClient.identity.attachProof({ idType: 'bvn', number, proof });
      if (error) return fieldError('code', errorText(error));
      element<HTMLInputElement>('bvn').value = '';
      await showAccount(false);
      arrive('bvn-done-title');
    }),
  );
});

element('sign-out').addEventListener('click', () => {
  once(element<HTMLButtonElement>('sign-out'), async () => {
    await authClient.signOut();
    pending = undefined;
    element('account').hidden = true;
    element('code-section').hidden = true;
    element('phone-section').hidden = false;
    element('email-section').hidden = false;
    element<HTMLInputElement>('phone').value = '';
    arrive('phone-title', text('account.signedOut'));
  });
});

// The browser's online state: a notice while offline, spoken when it changes.
function showOnline(): void {
  element('offline').hidden = navigator.onLine;
  say(text(navigator.onLine ? 'page.online' : 'page.offline'));
}
window.addEventListener('online', showOnline);
window.addEventListener('offline', showOnline);

document.documentElement.lang = locale;
document.title = text('page.tabTitle');
for (const node of document.querySelectorAll<HTMLElement>('[data-text]')) node.textContent = text(node.dataset.text!);
// The form is ready to use (and in the page's language): what a first-load measure waits for.
element('phone-form').querySelector('button')!.dataset.ready = '';
element('offline').hidden = navigator.onLine;
void showAccount(false);
