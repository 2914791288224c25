import { Hono } from 'hono';
import type { Verikit } from '@verikit/core';
import { createFlowHandler, RouteNotFoundError, toHonoHandler } from '@verikit/http';
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
    // A phone proof waits while the user fills in the BVN step: 30 minutes, not the default 5.
    proofTtlMs: 30 * 60_000,
    ...(options.webhookSecret === undefined ? {} : { webhooks: { secret: options.webhookSecret } }),
    onError: options.onError === undefined ? undefined : (error) => options.onError!(error),
  });
  const app = new Hono();
  // toHonoHandler passes the client address on (from @hono/node-server's bindings here; give it your
  // runtime's getConnInfo elsewhere), so the per-client limits count each client apart.
  app.all('/api/verify', toHonoHandler(flows));
  app.all('/api/verify/*', toHonoHandler(flows));
  mountSignupRoute(app, { verikit: options.verikit, accounts: options.accounts, onError: options.onError });
  app.all('/api/*', () => errorAnswer(new RouteNotFoundError()));
  app.on(
    ['GET', 'HEAD'],
    '*',
    (c) => options.page.answer(c.req.path, c.req.method) ?? errorAnswer(new RouteNotFoundError()),
  );
  app.onError((error) => errorAnswer(error));
  return app;
}
