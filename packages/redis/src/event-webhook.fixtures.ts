/** Shared by the Redis event webhook test and its worker process. */
export const eventWebhookTestSecret = 'event-webhook-redis-secret-0123456789abcdef';
export const eventWebhookSecret = `whsec_${Buffer.from('event-webhook-redis-key-0123456789').toString('base64')}`;
/** How long the worker holds an event it was sending: the parent waits this out. */
export const eventWebhookLeaseMs = 1000;
