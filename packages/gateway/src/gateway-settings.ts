import type {
  HttpAfterResponseHook,
  HttpBeforeRequestHook,
  HttpHooks,
  HttpProviderSettings,
  HttpRequestInfo,
} from '@verikit/provider-utils';
import type { GatewayOperation } from './endpoints.js';

/** What a hook is told about the request it sees. */
export type GatewayRequestInfo = HttpRequestInfo<GatewayOperation>;

/**
 * Runs before each attempt. The request carries the URL, the method and the headers, but not the
 * `apiKey` header (added afterwards, so no hook ever sees it) and not the body. A hook may add
 * headers, e.g. `traceparent`.
 */
export type GatewayBeforeRequestHook = HttpBeforeRequestHook<GatewayOperation>;

/**
 * Runs after each response, with a copy of it that the hook may read. Each such hook costs a copy
 * of the response, so the provider registers none of its own.
 */
export type GatewayAfterResponseHook = HttpAfterResponseHook<GatewayOperation>;

/** Hooks for tracing and logging, run by ky. */
export type GatewayHooks = HttpHooks<GatewayOperation>;

/** Where fields are in the service's responses and webhooks, as dotted paths such as `data.otp`. */
export interface GatewayMapping {
  /** USSD initiation. Defaults: `data.otp`, `data.ussdCode`, `data.reference`, each with common alternatives. */
  readonly ussd?: {
    /** Where the OTP to show is. */
    readonly otp?: string;
    /** Where the code to dial is. */
    readonly ussdCode?: string;
    /** Where the service's reference is (optional in the answer). */
    readonly reference?: string;
  };
  /** Phone verification: where the answers hold the request id and validity, and how the channel is chosen. */
  readonly phone?: {
    /** Where phone verification returns its requestId. Default `data.requestId` (and common alternatives). */
    readonly requestId?: string;
    /**
     * A boolean in the check response that says whether the code is right, e.g. `data.valid`. By default
     * `success: true` means valid (see docs/providers/gateway.md).
     */
    readonly valid?: string;
    /**
     * The body field that chooses the channel (SMS or voice), e.g. `channel`. Without it the service's
     * channel cannot be chosen, so the provider offers `sms` only.
     */
    readonly channelField?: string;
    /** The values sent in `channelField`. Default `sms` and `voice`. */
    readonly channelValues?: {
      /** The value that asks for an SMS. */
      readonly sms?: string;
      /** The value that asks for a voice call. */
      readonly voice?: string;
    };
  };
  /** The USSD_VERIFICATION webhook. Defaults: `event`, `phoneNumber`, `status`, each with common alternatives. */
  readonly webhook?: {
    /** Where the event name is. */
    readonly event?: string;
    /** The event name that means USSD verification. Default `USSD_VERIFICATION`. */
    readonly eventName?: string;
    /** Where the number that dialled is. */
    readonly phoneNumber?: string;
    /** Where the outcome is. */
    readonly status?: string;
    /** Status values that mean verified. Default `success`, `successful`, `verified`, `completed`, `true`. */
    readonly successValues?: readonly string[];
    /** Status values that mean failed. Default `failed`, `failure`, `false`. */
    readonly failureValues?: readonly string[];
  };
}

/**
 * Settings of {@link createGatewayProvider}. Every one may be left out; the key, addresses and sender then
 * come from the environment variable named beside it, read at each call and never logged.
 */
export interface GatewayProviderSettings extends HttpProviderSettings<GatewayOperation> {
  /**
   * The API key from the service dashboard, sent in the `apiKey` header. Never logged or put in an error.
   * Default: the `GATEWAY_API_KEY` environment variable.
   */
  readonly apiKey?: string;
  /** Base address of every endpoint but USSD initiation, e.g. `https://api.example.com`. Default: `GATEWAY_BASE_URL`. */
  readonly baseUrl?: string;
  /** Base address of USSD initiation (a different host). Default: `GATEWAY_USSD_BASE_URL`. */
  readonly ussdBaseUrl?: string;
  /**
   * Sender used when a call gives no `from` (SMS, phone verification). Default: `GATEWAY_SENDER`; without
   * one, SMS and phone sends need `from`.
   */
  readonly defaultSender?: string;
  /** Where fields are in responses and webhooks. */
  readonly mapping?: GatewayMapping;
  /** What a NIN looks like. Default 11 digits. */
  readonly ninPattern?: RegExp;
}

/** @deprecated The settings' old name: use {@link GatewayProviderSettings}. */
export type GatewayProviderOptions = GatewayProviderSettings;
