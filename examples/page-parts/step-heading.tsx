import { useEffect, useRef, type ReactNode } from 'react';

/**
 * The heading of a screen that has just appeared: focus moves to it (unless `focus` is false, as on
 * the first page load), so keyboard and screen-reader users start reading where the page changed.
 */
export function StepHeading({
  children,
  focus = true,
  className,
}: {
  children: ReactNode;
  focus?: boolean;
  className?: string;
}): ReactNode {
  const heading = useRef<HTMLHeadingElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: focus moves once, when the heading appears.
  useEffect(() => {
    if (focus) heading.current?.focus();
  }, []);
  return (
    <h2 ref={heading} tabIndex={-1} className={className}>
      {children}
    </h2>
  );
}
