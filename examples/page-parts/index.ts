/**
 * What the examples' pages share (examples/signup, examples/dial-in; examples/better-auth takes page.css): the
 * heading that takes focus when a screen appears, the page's one live region, the page's language, the browser's
 * online state, and "9:58" for a countdown.
 *
 * @module
 */
export { Announcer, useAnnounce } from './announcer.js';
export { StepHeading } from './step-heading.js';
export { useOnline } from './use-online.js';

/** The page's language: the first of the browser's `languages` the page has (of `available`), else the first available. */
export function pageLocale<Locale extends string>(
  languages: readonly string[],
  available: readonly [Locale, ...Locale[]],
): Locale {
  for (const tag of languages) {
    const language = tag.toLowerCase().split('-')[0];
    const found = available.find((locale) => locale === language);
    if (found !== undefined) return found;
  }
  return available[0];
}

/** "9:58" for a countdown in ms. */
export function minutesAndSeconds(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
