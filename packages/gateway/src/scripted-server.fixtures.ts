import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the scripted server received it. */
interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** An answer to give: status, body text and content type. */
export interface ScriptedAnswer {
  readonly status?: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

/**
 * A real local HTTP server that records every request and answers from a queue (then with a success
 * envelope whose `data` is `defaultData`). For wire-format and hostile-answer tests the sandbox does not cover.
 */
export async function startScriptedServer(defaultData: Record<string, unknown> | null = null) {
  const requests: RecordedRequest[] = [];
  const answers: ScriptedAnswer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = answers.shift() ?? {
        body: JSON.stringify({ success: true, message: 'ok', code: 0, data: defaultData }),
      };
      response
        .writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
        .end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    answer: (...next: ScriptedAnswer[]) => answers.push(...next),
    answerJson: (body: unknown, status = 200) => answers.push({ status, body: JSON.stringify(body) }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
