/** The operations of the service, named as the provider spec names them. */
export type GatewayOperation = 'ussd.initiate' | 'phone.send' | 'phone.check' | 'identity.bvn' | 'identity.nin' | 'sms.send' | 'whatsapp.send';

/** Which base address an endpoint lives under (spec §1: USSD initiation is on a different host). */
export type GatewayBase = 'ussd' | 'main';

/** One endpoint of the service: where it is and the messages it answers with (spec §4, §7). */
export interface GatewayEndpoint {
  readonly base: GatewayBase;
  readonly path: string;
  readonly successMessage: string | undefined;
  readonly failureMessage: string | undefined;
}

/** The seven endpoints of the service interface, exactly as spec §4 lists them. */
export const gatewayEndpoints: Readonly<Record<GatewayOperation, GatewayEndpoint>> = Object.freeze({
  'ussd.initiate': { base: 'ussd', path: '/messagingserv/gateway/api/v1/ussd/initiate-verification', successMessage: undefined, failureMessage: undefined },
  'sms.send': { base: 'main', path: '/gateway/api/v1/send/sms', successMessage: 'Message sent', failureMessage: 'Error sending message' },
  'identity.bvn': { base: 'main', path: '/gateway/api/v1/verify/bvn', successMessage: 'OTP sent', failureMessage: 'Error sending OTP' },
  'identity.nin': { base: 'main', path: '/gateway/api/v1/verify/nin', successMessage: 'OTP sent', failureMessage: 'Error sending OTP' },
  'phone.send': { base: 'main', path: '/gateway/api/v1/verify/phoneNumber', successMessage: 'Request Succesful', failureMessage: 'Error sending OTP' },
  'phone.check': { base: 'main', path: '/gateway/api/v1/verify/phoneCheck', successMessage: 'Request Succesful', failureMessage: 'Error sending OTP' },
  'whatsapp.send': { base: 'main', path: '/gateway/api/v1/send/whatsapp', successMessage: 'Message sent', failureMessage: 'Error sending message' },
});
