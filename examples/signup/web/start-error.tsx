import type { ReactNode } from 'react';
import type { FlowClientError } from '@verikit/client';
import { useMessage } from '@verikit/react';
import { errorId } from './messages.js';

/** The id for a refused field without its own: what a person can do about it. */
const fieldMessageIds: Readonly<Record<string, string>> = {
  phoneNumber: 'verikit.error.phone_number',
  number: 'verikit.error.invalid_id_number',
};

/** Why a flow did not start, in words a user can act on (from message ids, never the server's developer text). */
export function StartError({ error, field }: { error: FlowClientError | undefined; field: string }): ReactNode {
  const message = useMessage();
  if (error === undefined) return null;
  const issue = error.issues?.find((candidate) => candidate.field === field);
  const fieldId = fieldMessageIds[field] ?? errorId(error);
  const id =
    error.code === 'rate_limited'
      ? 'start.rateLimited'
      : issue !== undefined || error.field === field
        ? (issue?.messageId ?? fieldId)
        : errorId(error);
  // An id this page's catalogue does not know yet (a newer server's) reads as the field's own message, not a generic one.
  const text = message(id);
  const shown = text === message('verikit.error.unknown') && id !== 'verikit.error.unknown' ? message(fieldId) : text;
  return (
    <p role="alert" className="error">
      {shown}
    </p>
  );
}
