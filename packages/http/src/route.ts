/** The routes of the flow handler. `flowId` is the path segment as sent, percent-decoded, not yet validated. */
export type Route =
  | { readonly name: 'flows' }
  | { readonly name: 'flow'; readonly flowId: string }
  | { readonly name: 'events'; readonly flowId: string }
  | { readonly name: 'stream'; readonly flowId: string }
  | { readonly name: 'webhooks' };

/** The methods each route takes. */
export const routeMethods: Readonly<Record<Route['name'], readonly string[]>> = {
  flows: ['POST'],
  flow: ['GET'],
  events: ['POST'],
  stream: ['GET'],
  webhooks: ['POST'],
};

/** Normalizes a base path: `''`, or `/` followed by segments with no trailing slash. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * Matches a URL path against the routes below `basePath`. One trailing slash is tolerated;
 * anything else that is not a route (extra segments, a path outside the base) is undefined.
 */
export function matchRoute(pathname: string, basePath: string, webhookPath: string | undefined): Route | undefined {
  if (basePath !== '' && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return undefined;
  let path = pathname.slice(basePath.length);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (webhookPath !== undefined && path === webhookPath) return { name: 'webhooks' };
  const segments = path.split('/');
  if (segments[0] !== '' || segments[1] !== 'flows') return undefined;
  if (segments.length === 2) return { name: 'flows' };
  const flowId = decodeSegment(segments[2]);
  if (flowId === undefined) return undefined;
  if (segments.length === 3) return { name: 'flow', flowId };
  if (segments.length === 4 && segments[3] === 'events') return { name: 'events', flowId };
  if (segments.length === 4 && segments[3] === 'stream') return { name: 'stream', flowId };
  return undefined;
}

function decodeSegment(segment: string | undefined): string | undefined {
  if (segment === undefined || segment === '') return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
