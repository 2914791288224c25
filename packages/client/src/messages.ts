/**
 * One language's messages: message id → text for people, with `{name}` placeholders. A plain object:
 * spread it to extend or override (`{ ...messages.fr, 'verikit.error.code_invalid': '…' }`).
 */
export type MessageCatalogue = Readonly<Record<string, string>>;

/** Catalogues by language tag (`en`, `fr`, `fr-CA`): what {@link formatMessage} looks through. */
export type MessageCatalogues = Readonly<Record<string, MessageCatalogue>>;

/**
 * The English messages: every `messageId` an error can carry and the labels of the React parts. The default
 * catalogue, and the last one {@link formatMessage} looks in.
 */
export const englishMessages: MessageCatalogue = /* @__PURE__ */ Object.freeze({
  'verikit.error.code_invalid': 'That code is not correct.',
  'verikit.error.attempts_exhausted': 'Too many wrong codes. Ask for a new code.',
  'verikit.error.dial_failed': 'The verification did not go through.',
  'verikit.error.superseded':
    'A newer verification for this number was started elsewhere. Get a new code to continue here.',
  'verikit.error.outcome_unknown': 'We could not confirm the code was sent.',
  'verikit.error.match_failed': 'What you entered does not match the record of this number.',
  'verikit.error.no_record': 'No record was found for this number.',
  'verikit.error.consent_refused': 'Consent was refused.',
  'verikit.error.consent_pending': 'Consent has not been given yet.',
  'verikit.error.face_mismatch': 'The photo does not match the record.',
  'verikit.error.liveness_failed': 'The photo did not pass the liveness check. Take a new one.',
  'verikit.error.step_failed': 'The identity check did not pass.',
  'verikit.error.provider_unavailable': 'The service is unavailable. Try again in a moment.',
  'verikit.error.provider_rejected': 'The service refused the request.',
  'verikit.error.provider_authentication': 'Something went wrong on our side.',
  'verikit.error.provider_protocol': 'Something went wrong on our side.',
  'verikit.error.provider_error': 'Something went wrong on our side.',
  'verikit.error.capability_missing': 'This kind of verification is not available.',
  'verikit.error.record_schema': 'Something went wrong on our side.',
  'verikit.error.internal_error': 'Something went wrong on our side.',
  'verikit.error.usage_error': 'Something went wrong on our side.',
  'verikit.error.invalid_input': 'Check what you entered.',
  'verikit.error.event_not_allowed': 'That is not possible right now.',
  'verikit.error.rate_limited': 'Too many codes were sent. Try again later.',
  'verikit.error.flow_not_found': 'This verification has ended. Start again.',
  'verikit.error.flow_not_verified': 'The verification is not complete.',
  'verikit.error.proof_rejected': 'The verification could not be confirmed.',
  'verikit.error.forbidden': 'You are not allowed to do this.',
  'verikit.error.conflict': 'Please try again.',
  'verikit.error.idempotency_key_reused': 'Something went wrong. Please start again.',
  'verikit.error.store_unavailable': 'Please try again.',
  'verikit.error.network_error': 'We could not reach the server. Check your connection and try again.',
  'verikit.error.bad_response': 'Something went wrong on our side. Please try again.',
  'verikit.error.unknown': 'Something went wrong.',
  // Phone numbers the server refuses: one id per problem (`phoneNumberMessageIds` of @verikit/provider); an id not
  // listed here falls back to the first.
  'verikit.error.phone_number': 'Enter a valid phone number, such as +2348012345678.',
  'verikit.error.phone_number.not_a_string': 'Enter a phone number.',
  'verikit.error.phone_number.empty': 'Enter a phone number.',
  'verikit.error.phone_number.bad_characters':
    'A phone number has only digits, spaces and dashes, after an optional +.',
  'verikit.error.phone_number.needs_country_code': 'Enter the number with its country code, such as +234.',
  'verikit.error.phone_number.unknown_country_code': 'This country code does not exist. Check the start of the number.',
  'verikit.error.phone_number.too_short': 'This phone number is too short.',
  'verikit.error.phone_number.too_long': 'This phone number is too long.',
  'verikit.error.phone_number.invalid': 'This is not a valid phone number. Check the digits.',
  'verikit.error.phone_number.not_mobile': 'Enter a mobile phone number: we send the code by SMS.',
  'verikit.error.phone_number.cannot_receive_calls':
    'This number cannot receive calls. Choose another way to get the code.',
  'verikit.error.invalid_id_number': 'Check the number: a BVN or NIN has 11 digits, a virtual NIN 16 characters.',
  'verikit.code.label': 'Verification code',
  'verikit.code.digit': 'Digit {index} of {length}',
  'verikit.code.other_site':
    'That code was sent for {host}, not this site. Do not use it here: enter the code we sent you.',
  'verikit.resend.label': 'Resend code',
  'verikit.resend.wait': 'Resend code in {time}',
  'verikit.ussd.dial': 'Dial {code} on the phone you are verifying.',
  'verikit.ussd.enter': 'When asked, enter the code {otp}.',
});

/**
 * The French messages, the same ids as {@link englishMessages}. Shipped only to a page that imports them:
 * `<FlowClientProvider messages={{ en: englishMessages, fr: frenchMessages }} locale="fr">`.
 */
export const frenchMessages: MessageCatalogue = /* @__PURE__ */ Object.freeze({
  'verikit.error.code_invalid': "Ce code n'est pas correct.",
  'verikit.error.attempts_exhausted': 'Trop de codes erronés. Demandez un nouveau code.',
  'verikit.error.dial_failed': "La vérification n'a pas abouti.",
  'verikit.error.superseded':
    'Une vérification plus récente de ce numéro a été lancée ailleurs. Demandez un nouveau code pour continuer ici.',
  'verikit.error.outcome_unknown': "Nous n'avons pas pu confirmer l'envoi du code.",
  'verikit.error.match_failed': 'Vos informations ne correspondent pas au dossier de ce numéro.',
  'verikit.error.no_record': "Aucun dossier n'a été trouvé pour ce numéro.",
  'verikit.error.consent_refused': 'Le consentement a été refusé.',
  'verikit.error.consent_pending': "Le consentement n'a pas encore été donné.",
  'verikit.error.face_mismatch': 'La photo ne correspond pas au dossier.',
  'verikit.error.liveness_failed': "La photo n'a pas passé le contrôle de présence. Prenez-en une nouvelle.",
  'verikit.error.step_failed': "La vérification d'identité n'a pas abouti.",
  'verikit.error.provider_unavailable': 'Le service est indisponible. Réessayez dans un instant.',
  'verikit.error.provider_rejected': 'Le service a refusé la demande.',
  'verikit.error.provider_authentication': 'Un problème est survenu de notre côté.',
  'verikit.error.provider_protocol': 'Un problème est survenu de notre côté.',
  'verikit.error.provider_error': 'Un problème est survenu de notre côté.',
  'verikit.error.capability_missing': "Ce type de vérification n'est pas disponible.",
  'verikit.error.record_schema': 'Un problème est survenu de notre côté.',
  'verikit.error.internal_error': 'Un problème est survenu de notre côté.',
  'verikit.error.usage_error': 'Un problème est survenu de notre côté.',
  'verikit.error.invalid_input': 'Vérifiez ce que vous avez saisi.',
  'verikit.error.event_not_allowed': "Ce n'est pas possible pour le moment.",
  'verikit.error.rate_limited': 'Trop de codes ont été envoyés. Réessayez plus tard.',
  'verikit.error.flow_not_found': 'Cette vérification est terminée. Recommencez.',
  'verikit.error.flow_not_verified': "La vérification n'est pas terminée.",
  'verikit.error.proof_rejected': "La vérification n'a pas pu être confirmée.",
  'verikit.error.forbidden': "Vous n'êtes pas autorisé à faire cela.",
  'verikit.error.conflict': 'Veuillez réessayer.',
  'verikit.error.idempotency_key_reused': 'Un problème est survenu. Veuillez recommencer.',
  'verikit.error.store_unavailable': 'Veuillez réessayer.',
  'verikit.error.network_error': 'Impossible de joindre le serveur. Vérifiez votre connexion et réessayez.',
  'verikit.error.bad_response': 'Un problème est survenu de notre côté. Veuillez réessayer.',
  'verikit.error.unknown': 'Un problème est survenu.',
  'verikit.error.phone_number': 'Saisissez un numéro de téléphone valide, par exemple +2348012345678.',
  'verikit.error.phone_number.not_a_string': 'Saisissez un numéro de téléphone.',
  'verikit.error.phone_number.empty': 'Saisissez un numéro de téléphone.',
  'verikit.error.phone_number.bad_characters':
    'Un numéro de téléphone ne contient que des chiffres, des espaces et des tirets, après un + éventuel.',
  'verikit.error.phone_number.needs_country_code': "Saisissez le numéro avec l'indicatif du pays, par exemple +234.",
  'verikit.error.phone_number.unknown_country_code': "Cet indicatif de pays n'existe pas. Vérifiez le début du numéro.",
  'verikit.error.phone_number.too_short': 'Ce numéro de téléphone est trop court.',
  'verikit.error.phone_number.too_long': 'Ce numéro de téléphone est trop long.',
  'verikit.error.phone_number.invalid': "Ce numéro de téléphone n'est pas valide. Vérifiez les chiffres.",
  'verikit.error.phone_number.not_mobile': 'Saisissez un numéro de mobile : nous envoyons le code par SMS.',
  'verikit.error.phone_number.cannot_receive_calls':
    'Ce numéro ne peut pas recevoir d’appels. Choisissez un autre moyen de recevoir le code.',
  'verikit.error.invalid_id_number':
    'Vérifiez le numéro : un BVN ou un NIN compte 11 chiffres, un NIN virtuel 16 caractères.',
  'verikit.code.label': 'Code de vérification',
  'verikit.code.digit': 'Chiffre {index} sur {length}',
  'verikit.code.other_site':
    "Ce code a été envoyé pour {host}, pas pour ce site. Ne l'utilisez pas ici : saisissez le code que nous vous avons envoyé.",
  'verikit.resend.label': 'Renvoyer le code',
  'verikit.resend.wait': 'Renvoyer le code dans {time}',
  'verikit.ussd.dial': 'Composez {code} sur le téléphone à vérifier.',
  'verikit.ussd.enter': 'Quand on vous le demande, saisissez le code {otp}.',
});

/**
 * Every language the client ships, by tag: English and French. Importing it ships them all to the page; a page in
 * one language imports that language's catalogue instead ({@link englishMessages}, {@link frenchMessages}), which is
 * what the defaults do (English only). Extend or replace it: `{ ...messages, fr: { ...messages.fr, …yours } }`.
 */
export const messages: MessageCatalogues = /* @__PURE__ */ Object.freeze({ en: englishMessages, fr: frenchMessages });

/** What {@link formatMessage} and the React parts look in when given no catalogues: English only. */
export const defaultCatalogues: MessageCatalogues = /* @__PURE__ */ Object.freeze({ en: englishMessages });

/** Options of {@link formatMessage}. */
export interface FormatMessageOptions {
  /** A BCP 47 language tag (`fr-FR`); tried as is, then its language (`fr`), then `en`. Default `en`. */
  locale?: string | undefined;
  /**
   * The catalogues to look in. Default English only ({@link defaultCatalogues}): give the languages the page shows,
   * e.g. `{ en: englishMessages, fr: frenchMessages }` or {@link messages} for every shipped one.
   */
  catalogues?: MessageCatalogues | undefined;
  /** Values for the `{name}` placeholders. */
  params?: Readonly<Record<string, string | number>> | undefined;
}

/** The catalogues to try for a locale, most specific first. */
function cataloguesFor(locale: string, catalogues: MessageCatalogues): MessageCatalogue[] {
  const tags = [locale, locale.split('-')[0] ?? locale, 'en'];
  return tags.flatMap((tag) => (Object.hasOwn(catalogues, tag) ? [catalogues[tag]!] : []));
}

/** The text of `id`, or of its nearest parent id (`a.b.c` → `a.b`) when a catalogue does not list it. */
function lookUp(id: string, catalogues: readonly MessageCatalogue[]): string | undefined {
  for (let key = id; key.includes('.'); key = key.slice(0, key.lastIndexOf('.'))) {
    for (const catalogue of catalogues) if (Object.hasOwn(catalogue, key)) return catalogue[key];
  }
  return undefined;
}

/**
 * The plural form of `id` for `count` in the locale (`Intl.PluralRules`: `id.one`, `id.few`, `id.many`, …), else
 * `id.other`; undefined when the catalogues list neither, and for a locale `Intl` does not know.
 */
function pluralForm(id: string, count: number, locale: string, catalogues: readonly MessageCatalogue[]) {
  let category: string;
  try {
    category = new Intl.PluralRules(locale).select(count);
  } catch {
    category = 'other';
  }
  for (const key of [`${id}.${category}`, `${id}.other`])
    for (const catalogue of catalogues) if (Object.hasOwn(catalogue, key)) return catalogue[key];
  return undefined;
}

/**
 * The text of a message id in a language: the locale's catalogue, then its language's, then
 * English; an id no catalogue lists falls back to its parent (`verikit.error.phone_number.too_short`
 * → `verikit.error.phone_number`), and an error id to `verikit.error.unknown`. Placeholders
 * (`{field}`) take `params`. Never returns a developer message.
 *
 * Plurals follow the language's rules: with a numeric `count` param, the id's plural form for it
 * (`Intl.PluralRules`: `id.one`, `id.few`, `id.many`, …, then `id.other`) is used when a catalogue lists one, so
 * a language with other plural rules needs entries, not code.
 *
 * @example
 * formatMessage('verikit.code.digit', { locale: 'fr', catalogues: messages, params: { index: 2, length: 6 } }); // "Chiffre 2 sur 6"
 * // With { 'page.tries.one': '{count} essai', 'page.tries.other': '{count} essais' } in `catalogues.fr`:
 * // formatMessage('page.tries', { locale: 'fr', catalogues, params: { count: 0 } }); // "0 essai" (French: 0 is singular)
 */
export function formatMessage(id: string, options: FormatMessageOptions = {}): string {
  const locale = options.locale ?? 'en';
  const catalogues = cataloguesFor(locale, options.catalogues ?? defaultCatalogues);
  const count = options.params?.count;
  const text =
    (typeof count === 'number' ? pluralForm(id, count, locale, catalogues) : undefined) ??
    lookUp(id, catalogues) ??
    (id.startsWith('verikit.error.') ? lookUp('verikit.error.unknown', catalogues) : id);
  const params = options.params ?? {};
  return (text ?? id).replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

/** Anything with an error's `code` and, perhaps, `messageId`: a `FlowClientError` or a view's `error`. */
export interface MessageSource {
  /** The error's code: `verikit.error.<code>` when there is no `messageId`. */
  readonly code: string;
  /** The key to translate. */
  readonly messageId?: string | undefined;
}

/**
 * The text for people of an error, in a language, from its `messageId` (never its developer
 * `message`).
 *
 * @example
 * errorMessage(flow.sendError, { locale: 'fr' }); // "Cette vérification est terminée. Recommencez."
 */
export function errorMessage(error: MessageSource, options: FormatMessageOptions = {}): string {
  return formatMessage(error.messageId ?? `verikit.error.${error.code}`, options);
}
