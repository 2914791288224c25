import { messages, type MessageCatalogue, type MessageCatalogues } from '@verikit/client';

/** The page's own text, by message id: every word a person reads comes from here or from the client's catalogue. */
const en: MessageCatalogue = {
  'dialIn.pageTitle': 'Confirm your number by dialling',
  'dialIn.title': 'Confirm your number',
  'dialIn.form.title': 'Your phone number',
  'dialIn.help': 'You dial a short code from your phone: nothing is sent to you, and it costs nothing.',
  'dialIn.label': 'Phone number (with country code)',
  'dialIn.submit': 'Confirm by dialling',
  'dialIn.starting': 'Preparing your code…',
  'dialIn.dial.title': 'Dial to confirm',
  'dialIn.dial.waiting': 'Waiting for your dial… this page updates by itself.',
  'dialIn.timeLeft': 'Time left: {time}',
  'dialIn.cancel': 'Cancel',
  'dialIn.verified.title': 'Number confirmed',
  'dialIn.verified.text': '{phone} is yours: your carrier confirmed the dial.',
  'dialIn.expired.title': 'The code expired',
  'dialIn.expired.text': 'Nobody dialled it in time. A new code is free and takes a moment.',
  'dialIn.expired.again': 'Get a new code',
  'dialIn.otherNumber': 'Use another number',
  'dialIn.ended.title': 'This confirmation has ended',
  'dialIn.ended.text': 'It can no longer be used. Start again to get a new code.',
  'dialIn.startAgain': 'Start again',
  'dialIn.offline': 'You are offline. This page updates when you are back online.',
  'dialIn.online': 'You are back online.',
};

const fr: MessageCatalogue = {
  'dialIn.pageTitle': 'Confirmez votre numéro en composant un code',
  'dialIn.title': 'Confirmez votre numéro',
  'dialIn.form.title': 'Votre numéro de téléphone',
  'dialIn.help': "Vous composez un code court depuis votre téléphone : rien ne vous est envoyé, et c'est gratuit.",
  'dialIn.label': "Numéro de téléphone (avec l'indicatif du pays)",
  'dialIn.submit': 'Confirmer en composant',
  'dialIn.starting': 'Préparation de votre code…',
  'dialIn.dial.title': 'Composez pour confirmer',
  'dialIn.dial.waiting': 'En attente de votre appel… cette page se met à jour toute seule.',
  'dialIn.timeLeft': 'Temps restant : {time}',
  'dialIn.cancel': 'Annuler',
  'dialIn.verified.title': 'Numéro confirmé',
  'dialIn.verified.text': "Le {phone} est à vous : votre opérateur a confirmé l'appel.",
  'dialIn.expired.title': 'Le code a expiré',
  'dialIn.expired.text': "Personne ne l'a composé à temps. Un nouveau code est gratuit et ne prend qu'un instant.",
  'dialIn.expired.again': 'Obtenir un nouveau code',
  'dialIn.otherNumber': 'Utiliser un autre numéro',
  'dialIn.ended.title': 'Cette confirmation est terminée',
  'dialIn.ended.text': "Elle n'est plus utilisable. Recommencez pour obtenir un nouveau code.",
  'dialIn.startAgain': 'Recommencer',
  'dialIn.offline': 'Vous êtes hors ligne. Cette page se mettra à jour à votre retour.',
  'dialIn.online': 'Vous êtes de nouveau en ligne.',
};

/** The client's catalogues, extended with the page's text: what the page gives `FlowClientProvider`. */
export const pageMessages: MessageCatalogues = {
  ...messages,
  en: { ...messages.en, ...en },
  fr: { ...messages.fr, ...fr },
};
