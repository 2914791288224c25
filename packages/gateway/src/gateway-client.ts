import { ProviderRejectedError, type ProviderCallContextV1 } from '@verikit/provider';
import { answered, createHttpClient, failedAnswer, redactMessage, statusError } from '@verikit/provider-utils';
import { gatewayEndpoints, type GatewayOperation } from './endpoints.js';
import { readEnvelope, type Envelope } from './envelope.js';
import type { ResolvedGatewaySettings } from './gateway-settings-schema.js';

/** A response of the service that was read: its HTTP status and its envelope (2xx only). */
interface GatewayReply {
  readonly status: number;
  readonly envelope: Envelope;
}

/** Sends one operation's JSON body and returns the envelope of a 2xx answer; throws a verikit error otherwise. */
export interface GatewayClient {
  post(
    operation: GatewayOperation,
    body: Record<string, unknown>,
    context: ProviderCallContextV1,
  ): Promise<GatewayReply>;
  /** The error for a 2xx `success: false` envelope, with the key redacted from the service's message. */
  rejected(operation: GatewayOperation, envelope: Envelope): ProviderRejectedError;
}

/** Where one operation goes, for one pair of base addresses. */
interface Route {
  readonly url: string;
  readonly path: string;
}

/**
 * The gateway on the shared HTTP client of `@verikit/provider-utils` (one lean ky instance, see
 * docs/decisions/0101-lean-ky.md): the apiKey is read at each call and put in the `apiKey` header of a
 * copy made after every hook ran, so no hook or logger ever sees it.
 */
export function createGatewayClient(options: ResolvedGatewaySettings): GatewayClient {
  // The gateway's log lines are `verikit.gateway.*` whatever the provider's name.
  const http = createHttpClient<GatewayOperation>({ ...options, name: 'gateway' });

  // Routes per pair of base addresses: computed once, again only when an environment variable changes.
  let routesFor = { main: '', ussd: '' };
  let routes = new Map<GatewayOperation, Route>();
  const routeOf = (operation: GatewayOperation): Route => {
    const main = options.baseUrl();
    const ussd = options.ussdBaseUrl();
    if (main !== routesFor.main || ussd !== routesFor.ussd) {
      routes = new Map();
      for (const [each, endpoint] of Object.entries(gatewayEndpoints) as Array<
        [GatewayOperation, (typeof gatewayEndpoints)[GatewayOperation]]
      >) {
        const url = (endpoint.base === 'ussd' ? ussd : main) + endpoint.path;
        routes.set(each, { url, path: new URL(url).pathname });
      }
      routesFor = { main, ussd };
    }
    return routes.get(operation)!;
  };

  return {
    async post(operation, body, context) {
      const logger = context.logger;
      const apiKey = options.apiKey();
      const route = routeOf(operation);
      const answer = await http.send(
        {
          operation,
          url: route.url,
          path: route.path,
          body: JSON.stringify(body),
          authorize(headers, text) {
            headers['apikey'] = apiKey;
            return text;
          },
        },
        context,
      );
      const { status, text } = answer;
      // The gateway's log lines are `verikit.gateway.*` whatever the provider's name.
      const logged = { logger, provider: 'gateway', operation, answer };
      if (status < 200 || status > 299) {
        const reading = readEnvelope(operation, status, text);
        throw failedAnswer(
          logged,
          statusError(
            `gateway ${operation}`,
            status,
            reading.ok ? redactMessage(reading.envelope.message, [apiKey]) : undefined,
          ),
        );
      }
      const reading = readEnvelope(operation, status, text);
      if (!reading.ok) throw failedAnswer(logged, reading.error, { field: reading.error.field });
      const endpoint = gatewayEndpoints[operation];
      const message = reading.envelope.message;
      const recognised = message === (reading.envelope.success ? endpoint.successMessage : endpoint.failureMessage);
      answered(logged, { success: reading.envelope.success, recognised });
      return { status, envelope: reading.envelope };
    },
    rejected(operation, envelope) {
      const providerMessage = redactMessage(envelope.message, [options.apiKey()]);
      return new ProviderRejectedError(
        `gateway ${operation}: the service refused the request${providerMessage === undefined ? '' : `: ${providerMessage}`}`,
        {
          ...(providerMessage === undefined ? {} : { providerMessage }),
        },
      );
    },
  };
}
