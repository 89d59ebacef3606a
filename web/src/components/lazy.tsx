// A component whose code is its own chunk, fetched the first time it is shown (the markets page's first load stays
// small). Until then it shows `Fallback`; a chunk that fails to load shows the network error's words.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { ErrorView } from './status.tsx';

export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, Fallback: ComponentType | null = null): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function Lazy(props: P) {
    const [Component, setComponent] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState<unknown>(null);
    const [attempt, setAttempt] = useState(0);
    useEffect(() => {
      if (Component) return;
      let live = true;
      load().then(
        (c) => {
          loaded = c;
          if (live) setComponent(() => c);
        },
        (err: unknown) => live && setFailed(new ApiError(0, 'NETWORK_ERROR', String(err))),
      );
      return () => {
        live = false;
      };
    }, [attempt]);
    if (Component) return <Component {...props} />;
    if (failed) return <ErrorView error={failed} onRetry={() => (setFailed(null), setAttempt((n) => n + 1))} />;
    return Fallback ? <Fallback /> : null;
  };
}
