export { ForbiddenError } from './forbidden-error.js';
export { MethodNotAllowedError } from './method-not-allowed-error.js';
export { PayloadTooLargeError } from './payload-too-large-error.js';
export { RouteNotFoundError } from './route-not-found-error.js';
export { UnsupportedMediaTypeError } from './unsupported-media-type-error.js';
