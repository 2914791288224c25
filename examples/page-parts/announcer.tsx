import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';

const AnnounceContext = createContext<(text: string) => void>(() => undefined);

/**
 * The page's one polite live region: status changes are spoken from here, and nothing else on the page
 * is live (countdowns tick silently; `useAnnounce` speaks them at a few thresholds only).
 *
 * What is said in one go (the effects of one render: a new status, and a countdown that ended before it came) is
 * spoken as one utterance. Said one after the other, the last would replace the first before the region ever showed
 * it: a flow superseded after its resend cooldown ended said "You can ask for a new code now." and never why.
 */
export function Announcer({ children }: { children: ReactNode }): ReactNode {
  const [said, setSaid] = useState({ text: '', count: 0 });
  const gathering = useRef<string[] | undefined>(undefined);
  // The same words twice (two wrong codes in a row) must be spoken twice: a changing key remounts the text.
  const announce = useCallback((text: string) => {
    if (gathering.current !== undefined) {
      gathering.current.push(text);
      return;
    }
    const texts = [text];
    gathering.current = texts;
    queueMicrotask(() => {
      gathering.current = undefined;
      setSaid((before) => ({ text: utterance(texts), count: before.count + 1 }));
    });
  }, []);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div role="status" aria-live="polite" aria-atomic="true" className="visually-hidden" id="announcer">
        <span key={said.count}>{said.text}</span>
      </div>
    </AnnounceContext.Provider>
  );
}

/** Texts said together, as sentences: each but the last ends with a full stop unless it has its own mark. */
function utterance(texts: readonly string[]): string {
  return texts.map((text, index) => (index < texts.length - 1 && !/[.!?…]$/.test(text) ? `${text}.` : text)).join(' ');
}

/** Speaks a status change in the page's live region. */
export function useAnnounce(): (text: string) => void {
  return useContext(AnnounceContext);
}
