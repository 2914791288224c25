import { ProviderProtocolError, ProviderRejectedError, type ProviderCallContextV1 } from '@verikit/provider';
import { createHttpClient, readJsonAnswer, redactMessage } from '@verikit/provider-utils';
import type { AfricasTalkingOperation } from './africastalking-settings.js';
import type { ResolvedAfricasTalkingSettings } from './africastalking-settings-schema.js';
import { isAcceptedStatus, recipientError } from './africastalking-status.js';

/** Africa's Talking's paths, as its API reference and official SDK name them. */
export const africasTalkingPaths = {
  /** SMS, "Send SMS" (bulk): `POST /version1/messaging`, form-encoded, answered 201 with `SMSMessageData`. */
  messaging: '/version1/messaging',
} as const;

/** One recipient of an SMS send, as the API answers it. */
interface AfricasTalkingRecipient {
  /** The message id delivery reports name (`ATXid_…`). */
  readonly messageId: string;
  /** The number, in international format. */
  readonly number: string;
}

/** Posts form bodies to Africa's Talking with the `apiKey` header added at the last moment. */
export interface AfricasTalkingClient {
  /** Sends one SMS to one number; returns the recipient, or throws the typed error for its status code. */
  sendSms(
    form: Readonly<Record<string, string>>,
    context: ProviderCallContextV1,
    operation: AfricasTalkingOperation,
  ): Promise<AfricasTalkingRecipient>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A short, one-line version of an error body (Africa's Talking answers errors in plain text). */
function shortText(text: string): string | undefined {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length === 0 || line.startsWith('<')) return undefined;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Creates the Africa's Talking client on the shared HTTP client of `@verikit/provider-utils`, with form bodies. */
export function createAfricasTalkingClient(settings: ResolvedAfricasTalkingSettings): AfricasTalkingClient {
  const http = createHttpClient<AfricasTalkingOperation>({
    ...settings,
    contentType: 'application/x-www-form-urlencoded',
  });
  return {
    async sendSms(form, context, operation) {
      const apiKey = settings.apiKey();
      const label = `${settings.name} ${operation}`;
      const body = new URLSearchParams({ username: settings.username(), ...form }).toString();
      const answer = await http.send(
        {
          operation,
          url: settings.baseUrl() + africasTalkingPaths.messaging,
          path: africasTalkingPaths.messaging,
          body,
          authorize(headers, text) {
            headers['apikey'] = apiKey;
            return text;
          },
        },
        context,
      );
      const data = readJsonAnswer(
        { logger: context.logger, provider: settings.name, operation, answer },
        { message: (_body, text) => shortText(text), secrets: [apiKey] },
      )['SMSMessageData'];
      if (!isObject(data))
        throw new ProviderProtocolError(`${label}: the response has no SMSMessageData`, { field: 'SMSMessageData' });
      const recipients = data['Recipients'];
      if (!Array.isArray(recipients))
        throw new ProviderProtocolError(`${label}: the response has no SMSMessageData.Recipients`, {
          field: 'SMSMessageData.Recipients',
        });
      const first: unknown = recipients[0];
      if (first === undefined) {
        // The whole request was refused (an unknown sender id is answered this way): the reason is in Message.
        const message =
          typeof data['Message'] === 'string' ? redactMessage(shortText(data['Message']), [apiKey]) : undefined;
        throw new ProviderRejectedError(
          `${label}: Africa's Talking sent to no recipient${message === undefined ? '' : `: ${message}`}`,
          message === undefined ? {} : { providerMessage: message },
        );
      }
      if (!isObject(first))
        throw new ProviderProtocolError(`${label}: a recipient is not an object`, {
          field: 'SMSMessageData.Recipients',
        });
      const code = typeof first['statusCode'] === 'number' ? first['statusCode'] : Number.NaN;
      const status = typeof first['status'] === 'string' ? first['status'] : undefined;
      if (Number.isNaN(code))
        throw new ProviderProtocolError(`${label}: the recipient has no statusCode`, { field: 'statusCode' });
      if (!isAcceptedStatus(code)) throw recipientError(label, code, status);
      const messageId = first['messageId'];
      if (typeof messageId !== 'string' || messageId.length === 0 || messageId.length > 256)
        throw new ProviderProtocolError(`${label}: the recipient has no messageId`, { field: 'messageId' });
      return { messageId, number: typeof first['number'] === 'string' ? first['number'] : '' };
    },
  };
}
