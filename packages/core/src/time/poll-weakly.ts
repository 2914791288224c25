/**
 * Calls `run` with `target` every `pollMs` while `target` lives, and returns the function that stops the poll (the
 * engine's `close`). The target is held weakly, so an engine nobody uses any more is collected and its poll stops
 * with it; the interval keeps no process alive (`unref`). `pollMs` 0: no poll, only calls made by hand.
 */
export function pollWeakly<T extends object>(target: T, pollMs: number, run: (target: T) => void): () => void {
  if (pollMs <= 0) return () => undefined;
  const held = new WeakRef(target);
  const poll = setInterval(() => {
    const live = held.deref();
    if (live === undefined) clearInterval(poll);
    else run(live);
  }, pollMs);
  // A number on workerd and in browsers, which have no process to keep alive.
  (poll as { unref?: () => unknown }).unref?.();
  return () => clearInterval(poll);
}
