// Loads data for a page and reloads it on demand; a newer load wins over an older one.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Query<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): Promise<void>;
}

export function useQuery<T>(load: () => Promise<T>, deps: unknown[]): Query<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  const reload = useCallback(async () => {
    const run = ++latest.current;
    setLoading(true);
    try {
      const value = await loadRef.current();
      if (run !== latest.current) return;
      setData(value);
      setError(null);
    } catch (err) {
      if (run === latest.current) setError(err);
    } finally {
      if (run === latest.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, deps);

  return { data, error, loading, reload };
}
