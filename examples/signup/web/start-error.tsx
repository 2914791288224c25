import type { ReactNode } from 'react';
import type { FlowClientError } from '@verikit/client';

/** Why a flow did not start, in words a user can act on. */
export function StartError({ error, field }: { error: FlowClientError | undefined; field: string }): ReactNode {
  if (error === undefined) return null;
  const issue = error.issues?.find((candidate) => candidate.field === field);
  const message =
    error.code === 'rate_limited'
      ? 'Too many codes were sent to this number. Please try again later.'
      : issue !== undefined
        ? `This ${field === 'number' ? 'BVN' : 'phone number'} ${issue.message}.`
        : error.message;
  return (
    <p role="alert" className="error">
      {message}
    </p>
  );
}
