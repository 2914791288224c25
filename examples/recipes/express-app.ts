import type { Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import express, { type Express } from 'express';

/**
 * Express: the flow API under /api/verify beside the app's own routes. Express strips a mount path, so the
 * handler is not mounted with `app.use('/api/verify', …)`: it gets the whole path (`basePath`) and its requests
 * are picked by path. No body parser runs for them: the handler reads the body itself (size cap, JSON, and the
 * exact bytes a webhook signature covers). The client address (for the send guard) comes from the socket, through
 * `toNodeHandler`; behind a reverse proxy, pass `trustProxy: true` to read `X-Forwarded-For` instead.
 */
export function createExpressApp(options: { verikit: Verikit; webhookSecret: string | undefined }): Express {
  const { verikit, webhookSecret } = options;
  const verify = toNodeHandler(
    createFlowHandler({ verikit, basePath: '/api/verify', webhooks: { secret: webhookSecret } }),
  );
  const app = express();
  app.use((request, response, next) => {
    if (request.path === '/api/verify' || request.path.startsWith('/api/verify/')) void verify(request, response);
    else next();
  });
  // The app's own routes, with their own body parsers.
  app.post('/api/notes', express.json(), (request, response) => {
    response.status(201).json({ saved: request.body });
  });
  return app;
}
