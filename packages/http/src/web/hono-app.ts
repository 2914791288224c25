import { Hono } from 'hono';
import { responseOf, webRouteRequest } from '../routes/route-request.js';
import type { RouteTable } from '../routes/route-table.js';

/**
 * The Web adapter of a route table: a Hono app with one route per table route (in the table's order), and the
 * table's 404. A `(Request) => Promise<Response>` for any runtime that speaks Fetch (decision 1510).
 */
export function honoHandlerOf(table: RouteTable): (request: Request, env?: unknown) => Promise<Response> {
  const app = new Hono({ strict: false });
  const api = table.basePath === '' ? app : app.basePath(table.basePath);
  for (const route of table.routes) {
    api.all(route.path, async (c) =>
      responseOf(await route.answer(webRouteRequest(c.req.raw, c.env), c.req.param('id'))),
    );
  }
  app.notFound((c) => responseOf(table.notFound(webRouteRequest(c.req.raw, c.env))));
  app.onError((error, c) => responseOf(table.fail(error, webRouteRequest(c.req.raw, c.env))));
  return async (request, env) => {
    try {
      return await app.fetch(request, env);
    } catch (error) {
      // Hono rethrows what is not an `Error` (a hook that throws a string): answered all the same.
      return responseOf(table.fail(error, webRouteRequest(request, env)));
    }
  };
}
