/**
 * The request with a body whose cancel reads the rest away instead of cancelling the source. The flow handler
 * cancels a body it refuses (415, 413); under Better Auth's node handler (better-call's), cancelling the request's
 * body destroys the node request, and with it the socket, so the client got no answer at all. Drained, the answer
 * goes out and the connection ends cleanly; how long a client may send is bounded by node's `requestTimeout`.
 */
export function withDrainedBody(request: Request): Request {
  const source = request.body;
  if (source === null) return request;
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      void drain(reader);
    },
  });
  return new Request(request, { body, duplex: 'half' } as RequestInit);
}

/** Reads and drops what is left of a body; a failure (the client went away) ends it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  try {
    while (!(await reader.read()).done);
  } catch {
    // The client closed the connection: nothing left to read.
  }
}
