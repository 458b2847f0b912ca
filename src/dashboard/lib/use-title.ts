import { useEffect } from 'preact/hooks';

/** Sets the tab title, so history entries and screen readers name the page. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · CRM dashboard`;
  }, [title]);
}
