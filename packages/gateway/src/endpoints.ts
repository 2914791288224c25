/** The operations of the service, named as the provider spec names them. */
export type GatewayOperation =
  | 'ussd.initiate'
  | 'phone.send'
  | 'phone.check'
  | 'identity.bvn'
  | 'identity.nin'
  | 'sms.send'
  | 'whatsapp.send';

/** Which base address an endpoint lives under (docs/service.md: USSD initiation is on a different host). */
export type GatewayBase = 'ussd' | 'main';

/** One endpoint of the service: where it is and the messages it answers with (docs/service.md, "The seven endpoints"). */
export interface GatewayEndpoint {
  /** Which base address the endpoint is under: USSD initiation has its own. */
  readonly base: GatewayBase;
  /** The path after the base address: the base's prefix, then the route. */
  readonly path: string;
  /** The path after the `…/api/v1` prefix: the same under either prefix (the sandbox serves both). */
  readonly route: string;
  /** The message of a success envelope, where the interface gives one (it gives none for USSD initiation). */
  readonly successMessage: string | undefined;
  /** The message of a failure envelope, where the interface gives one. */
  readonly failureMessage: string | undefined;
}

/** The path prefix of each base address (docs/service.md). */
export const gatewayPathPrefixes: Readonly<Record<GatewayBase, string>> = Object.freeze({
  ussd: '/messagingserv/gateway/api/v1',
  main: '/gateway/api/v1',
});

const endpoint = (
  base: GatewayBase,
  route: string,
  successMessage?: string,
  failureMessage?: string,
): GatewayEndpoint =>
  Object.freeze({ base, path: gatewayPathPrefixes[base] + route, route, successMessage, failureMessage });

/**
 * The seven endpoints of the service interface, exactly as docs/service.md lists them. The one table of the
 * service's addresses and messages: the provider calls them, and `@verikit/sandbox` serves them.
 */
export const gatewayEndpoints: Readonly<Record<GatewayOperation, GatewayEndpoint>> = Object.freeze({
  'ussd.initiate': endpoint('ussd', '/ussd/initiate-verification'),
  'sms.send': endpoint('main', '/send/sms', 'Message sent', 'Error sending message'),
  'identity.bvn': endpoint('main', '/verify/bvn', 'OTP sent', 'Error sending OTP'),
  'identity.nin': endpoint('main', '/verify/nin', 'OTP sent', 'Error sending OTP'),
  'phone.send': endpoint('main', '/verify/phoneNumber', 'Request Succesful', 'Error sending OTP'),
  'phone.check': endpoint('main', '/verify/phoneCheck', 'Request Succesful', 'Error sending OTP'),
  'whatsapp.send': endpoint('main', '/send/whatsapp', 'Message sent', 'Error sending message'),
});
