import { Hono } from 'hono';
import type { Verikit } from '@verikit/core';
import { createFlowHandler, RouteNotFoundError } from '@verikit/http';
import type { AccountStore } from './accounts.js';
import { errorAnswer } from './error-answer.js';
import type { PageFiles } from './page-files.js';
import { mountSignupRoute } from './signup-route.js';

/** What the app is made of. */
export interface SignupAppOptions {
  readonly verikit: Verikit;
  readonly accounts: AccountStore;
  /** The secret the provider signs its webhooks with; without one the webhook route refuses every delivery. */
  readonly webhookSecret: string | undefined;
  /** The built page. */
  readonly page: PageFiles;
  /** Server-side failures (5xx, a welcome SMS that did not go out), for the logs. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The app: the flow API under `/api/verify` (start, read, events, the live stream, the provider's
 * webhooks, the proof of a verified flow), the signup under `/api/signup`, and the page for
 * everything else. A Web-standard app: serve `app.fetch` with @hono/node-server, Bun or Deno.
 */
export function createSignupApp(options: SignupAppOptions): Hono {
  const flows = createFlowHandler({
    verikit: options.verikit,
    basePath: '/api/verify',
    ...(options.webhookSecret === undefined ? {} : { webhooks: { secret: options.webhookSecret } }),
    onError: options.onError === undefined ? undefined : (error) => options.onError!(error),
  });
  const app = new Hono();
  app.all('/api/verify', (c) => flows(c.req.raw));
  app.all('/api/verify/*', (c) => flows(c.req.raw));
  mountSignupRoute(app, { verikit: options.verikit, accounts: options.accounts, onError: options.onError });
  app.all('/api/*', () => errorAnswer(new RouteNotFoundError()));
  app.on(
    ['GET', 'HEAD'],
    '*',
    (c) => options.page.answer(c.req.path, c.req.method, c.req.raw.headers) ?? errorAnswer(new RouteNotFoundError()),
  );
  app.onError((error) => errorAnswer(error));
  return app;
}
