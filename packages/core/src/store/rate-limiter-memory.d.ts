// rate-limiter-flexible's memory limiter alone: its index loads every backend it supports (Redis, Mongo, SQL,
// cluster, ...), about 30 ms of start-up this package never uses (decision 1220). The package has no exports map,
// so the file is reachable; its types are the index's.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  const RateLimiterMemory: typeof import('rate-limiter-flexible').RateLimiterMemory;
  export default RateLimiterMemory;
}
