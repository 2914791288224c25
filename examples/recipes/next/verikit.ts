import { createVerikit } from '@verikit/core';
import { createGatewayProvider } from '@verikit/gateway';

/**
 * The app's one engine, made once per server process: the gateway provider from `GATEWAY_*`, the engine's secret
 * from `VERIKIT_SECRET`. (Flows live in memory here; with several instances, give it `@verikit/redis`'s store.)
 */
export const verikit = createVerikit({ provider: createGatewayProvider(), secret: process.env.VERIKIT_SECRET ?? '' });
