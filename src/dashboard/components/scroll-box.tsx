import type { ComponentChildren } from 'preact';

/**
 * A wide table's box: on a narrow screen the table scrolls inside it, not the page. It can take
 * focus, so that keyboard users can scroll it too, and is named for screen readers.
 */
export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
