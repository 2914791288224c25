/** The largest answer body read, in bytes: an error page from a proxy can be large, and nothing we need is. */
const maxBodyBytes = 256 * 1024;

/**
 * The body as text, reading at most `limit` bytes; undefined when the body is longer (the rest is
 * cancelled, not downloaded) or cannot be read.
 */
async function readBoundedText(response: Response, limit: number = maxBodyBytes): Promise<string | undefined> {
  const body = response.body;
  if (body === null) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return undefined;
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return undefined;
  }
}

/** The value of a JSON text, or undefined when it is not JSON (an empty text included). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON value of a body, or undefined when it is missing, too large or not JSON. */
export async function readBoundedJson(response: Response, limit: number = maxBodyBytes): Promise<unknown> {
  const text = await readBoundedText(response, limit);
  return text === undefined ? undefined : parseJson(text);
}
