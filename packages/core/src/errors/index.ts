export { FlowNotFoundError } from './flow-not-found-error.js';
export { EventNotAllowedError } from './event-not-allowed-error.js';
export { ConflictError } from './conflict-error.js';
export { StoreError } from './store-error.js';
export { StoreDeadlineError, type StoreDeadlineErrorOptions } from './store-deadline-error.js';
export { RecordSchemaError } from './record-schema-error.js';
export { UsageError } from './usage-error.js';
export { FlowNotVerifiedError } from './flow-not-verified-error.js';
export { ProofRejectedError, type ProofRejection } from './proof-rejected-error.js';
