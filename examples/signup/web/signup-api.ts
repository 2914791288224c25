import { FlowClientError } from '@verikit/client';

/** A proof that a flow was verified: a single-use token the signup redeems on the server. */
export interface Proof {
  readonly token: string;
  readonly expiresAt: number;
}

/** What the signup answers. */
export interface SignupAnswer {
  readonly account: { readonly id: string; readonly phoneNumber: string; readonly bvn: string };
  readonly welcomeSms: 'sent' | 'failed';
}

/** What the page sends to create the account. */
export interface SignupRequest {
  readonly phoneNumber: string;
  readonly bvn: string;
  readonly phoneProof: string;
  readonly bvnProof: string;
}

/** Creates the account (`POST /api/signup`): the server redeems both proofs first. */
export function signUp(request: SignupRequest): Promise<SignupAnswer> {
  return postJson<SignupAnswer>('/api/signup', request);
}

/** POSTs JSON; an error answer becomes a `FlowClientError` with the server's code, message and field. */
async function postJson<T>(path: string, body: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch (error) {
    throw new FlowClientError('network_error', 'the server could not be reached', { isRetryable: true, cause: error });
  }
  const answer = (await response.json().catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown; field?: unknown } }
    | undefined;
  if (response.ok && answer !== undefined) return answer as T;
  const error = answer?.error;
  const code = typeof error?.code === 'string' ? error.code : 'bad_response';
  const message = typeof error?.message === 'string' ? error.message : `the server answered ${response.status}`;
  throw new FlowClientError(code, message, {
    statusCode: response.status,
    field: typeof error?.field === 'string' ? error.field : undefined,
  });
}
