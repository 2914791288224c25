/**
 * The browser the browser tests drive (decision 0721): Debian's Chromium, headless, with nothing that phones home.
 * One list for every test that launches it (`chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })`).
 */
export const chromiumPath = '/usr/bin/chromium';

/** Headless, no sandbox (containers), and no first-run, update, sync or background traffic. */
export const chromiumArgs: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
