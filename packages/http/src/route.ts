/** The routes of the flow handler, below its base path, and the methods each takes. */
export const routeMethods = {
  flows: ['POST'],
  flow: ['GET'],
  events: ['POST'],
  stream: ['GET'],
  proof: ['POST'],
  webhooks: ['POST'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** Normalizes a base path: `''`, or `/` followed by segments with no trailing slash. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
