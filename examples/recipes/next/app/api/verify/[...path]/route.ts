import { createFlowHandler } from '@verikit/http';
import { verikit } from '../../../../verikit.js';

/**
 * Next.js (App Router): app/api/verify/[...path]/route.ts serves the whole flow API, the webhook route included.
 * A route handler gets no socket: the client address (for the send guard) comes from `X-Forwarded-For`, which
 * `trustProxy: true` reads; set it only where a proxy you run or your platform (Vercel) writes that header.
 */
const handler = createFlowHandler({
  verikit,
  basePath: '/api/verify',
  webhooks: { secret: process.env.VERIKIT_WEBHOOK_SECRET },
  trustProxy: true,
});

// Next.js calls these with (request, { params }): pass the request only.
export const GET = (request: Request) => handler(request);
export const POST = (request: Request) => handler(request);
export const OPTIONS = (request: Request) => handler(request);

// Server-sent events stream from Node.js, never from a cached response.
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
