// One read of the API per change of its inputs: the answer, the error, and a retry. A newer read aborts the older one.
import { useEffect, useState } from 'preact/hooks';
import { isAbort } from '../api/client.ts';

export interface Fetched<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  retry: () => void;
}

export function useFetch<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Fetched<T> {
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ data: s.data, error: null, loading: true }));
    load(abort.signal).then(
      (data) => setState({ data, error: null, loading: false }),
      (error: unknown) => {
        if (!isAbort(error)) setState({ data: null, error, loading: false });
      },
    );
    return () => abort.abort();
    // The caller names what the read depends on (deps), as with useEffect.
  }, [...deps, attempt]);
  return { ...state, retry: () => setAttempt((n) => n + 1) };
}
