/**
 * The address of the connection the request being answered came on, when a server adapter of this package
 * (`toNodeHandler` of `@verikit/better-auth/node`) knows it. The adapter sets the source when it is made, so
 * the plugin's own entry stays free of Node.js modules (edge runtimes load it too).
 */
let source: () => string | undefined = () => undefined;

/** The current request's connection address, or undefined when no adapter of this package serves it. */
export function peerAddress(): string | undefined {
  return source();
}

/** Called once by a server adapter: where {@link peerAddress} reads the current request's connection address. */
export function setPeerAddressSource(read: () => string | undefined): void {
  source = read;
}
