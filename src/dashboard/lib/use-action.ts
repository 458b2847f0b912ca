// Runs a user action: clears the last error, marks it busy while it runs, and keeps its error for display.
import { useState } from 'preact/hooks';

export interface Action {
  error: unknown;
  busy: boolean;
  run(action: () => Promise<unknown>): Promise<void>;
}

export function useAction(): Action {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return { error, busy, run };
}
