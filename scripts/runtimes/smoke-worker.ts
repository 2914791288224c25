// workerd: answer every request with the smoke run's result.
import { smoke } from './smoke.js';

export default {
  async fetch(): Promise<Response> {
    return new Response(await smoke());
  },
};
