import { withPreparedStream } from './routes/server-bindings.js';
import { jsonAnswer, type RouteAnswer } from './routes/route-request.js';

/** A route's answer as a `Response` (an event stream for toNodeHandler rides on it, decision 0511). */
export function responseOf(answer: RouteAnswer): Response {
  // A headers object of its own: @hono/node-server's lightweight `Response` adds `Content-Length` to the one given.
  const response = new Response(answer.body ?? null, { status: answer.status, headers: { ...answer.headers } });
  return answer.stream === undefined ? response : withPreparedStream(response, answer.stream);
}

/** A JSON response with the handler's standard headers. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return responseOf(jsonAnswer(body, status, headers));
}
