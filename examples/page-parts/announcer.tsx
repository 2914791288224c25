import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

const AnnounceContext = createContext<(text: string) => void>(() => undefined);

/**
 * The page's one polite live region: status changes are spoken from here, and nothing else on the page
 * is live (countdowns tick silently; `useAnnounce` speaks them at a few thresholds only).
 */
export function Announcer({ children }: { children: ReactNode }): ReactNode {
  const [said, setSaid] = useState({ text: '', count: 0 });
  // The same words twice (two wrong codes in a row) must be spoken twice: a changing key remounts the text.
  const announce = useCallback((text: string) => setSaid((before) => ({ text, count: before.count + 1 })), []);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div role="status" aria-live="polite" aria-atomic="true" className="visually-hidden" id="announcer">
        <span key={said.count}>{said.text}</span>
      </div>
    </AnnounceContext.Provider>
  );
}

/** Speaks a status change in the page's live region. */
export function useAnnounce(): (text: string) => void {
  return useContext(AnnounceContext);
}
