/** Between a provider's name and its own requestId in the requestIds a failover provider returns. */
const separator = '~';
/** Between a provider's name, the route its flow is counted on and when it was chosen (`termii@sms:MTN@m3x2k1~…`). */
const routeMark = '@';

/** What a failover's requestId carries besides the member's own requestId. */
export interface RouteMarks {
  /** The member that sent, by name. */
  readonly member: string;
  /** The route the flow is counted on, with a router. */
  readonly route?: string;
  /** When the router chose it (its clock, ms since the epoch), when kept. */
  readonly at?: number;
}

/**
 * A failover's requestId: `member~inner`; routed, `member@route~inner`, and `member@route@at~inner` when the choice's
 * time is kept (base 36), so a check or a receipt on any instance tells the router the route, member and time.
 */
export function markedRequestId(marks: RouteMarks, inner: string): string {
  const at = marks.at !== undefined && Number.isSafeInteger(marks.at) && marks.at >= 0 ? marks.at : undefined;
  const route =
    marks.route === undefined ? '' : `${routeMark}${marks.route}${at === undefined ? '' : routeMark + at.toString(36)}`;
  return `${marks.member}${route}${separator}${inner}`;
}

/** The marks and the member's own requestId of a failover's requestId; undefined: it has no `member~` head. */
export function readRequestId(requestId: unknown): (RouteMarks & { inner: string }) | undefined {
  const end = typeof requestId === 'string' ? requestId.indexOf(separator) : -1;
  if (end <= 0) return undefined;
  const [member = '', route, at] = (requestId as string).slice(0, end).split(routeMark);
  const sentAt = at === undefined ? Number.NaN : Number.parseInt(at, 36);
  return {
    member,
    inner: (requestId as string).slice(end + 1),
    ...(route === undefined ? {} : { route }),
    ...(Number.isSafeInteger(sentAt) ? { at: sentAt } : {}),
  };
}
