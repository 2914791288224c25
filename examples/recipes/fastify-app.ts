import type { Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import Fastify from 'fastify';

/**
 * Fastify: the flow API under /api/verify in a scope of its own, where Fastify parses no body (the handler reads
 * it itself: size cap, JSON, and the exact bytes a webhook signature covers) and hands the raw node request and
 * response over (`reply.hijack()`). The client address (for the send guard) comes from the socket, through
 * `toNodeHandler`; behind a reverse proxy, pass `trustProxy: true` to read `X-Forwarded-For` instead.
 */
export async function createFastifyApp(options: { verikit: Verikit; webhookSecret: string | undefined }) {
  const { verikit, webhookSecret } = options;
  const verify = toNodeHandler(
    createFlowHandler({ verikit, basePath: '/api/verify', webhooks: { secret: webhookSecret } }),
  );
  const app = Fastify();
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all('/api/verify/*', async (request, reply) => {
      reply.hijack();
      await verify(request.raw, reply.raw);
    });
  });
  // The app's own routes keep Fastify's JSON parsing.
  app.post('/api/notes', async (request, reply) => reply.code(201).send({ saved: request.body }));
  return app;
}
