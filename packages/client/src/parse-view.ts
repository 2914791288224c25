import type { FlowView } from './flow-view.js';

/** A flow id as the server makes them: what may go into a URL path. */
export const flowIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

function isTime(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * The view in an answer or an event, checked for the fields the client relies on (id, version,
 * status, done, allowed, times); undefined when it is not a view. Fields a newer server adds are
 * kept; a status this client does not know is kept too, so a UI can render it generically.
 */
export function parseView(value: unknown, expectedId?: string): FlowView | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const view = value as Record<string, unknown>;
  if (typeof view.id !== 'string' || !flowIdPattern.test(view.id)) return undefined;
  if (expectedId !== undefined && view.id !== expectedId) return undefined;
  if (typeof view.version !== 'number' || !Number.isSafeInteger(view.version) || view.version < 0) return undefined;
  if (typeof view.status !== 'string' || view.status.length === 0 || view.status.length > 64) return undefined;
  if (typeof view.kind !== 'string' || typeof view.done !== 'boolean') return undefined;
  if (!Array.isArray(view.allowed) || !view.allowed.every((type) => typeof type === 'string')) return undefined;
  if (![view.resendAvailableAt, view.expiresAt, view.serverTime, view.createdAt, view.updatedAt].every(isTime))
    return undefined;
  return Object.freeze({ ...view, allowed: Object.freeze([...view.allowed]) }) as unknown as FlowView;
}
