// The app's routes (the server answers index.html on the same paths: src/api/http/web-app.ts WEB_APP_ROUTES) and a
// history-API navigation with no library: links call navigate(), the back button fires popstate.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'markets' }
  | { page: 'market'; address: string }
  | { page: 'leaderboard' }
  | { page: 'discover' }
  | { page: 'profile'; address: string }
  | { page: 'portfolio' }
  | { page: 'buy' }
  | { page: 'notFound' };

export function routeOf(pathname: string): Route {
  if (pathname === '/' || pathname === '/markets' || pathname === '/markets/') return { page: 'markets' };
  const market = /^\/markets\/([^/]+)\/?$/.exec(pathname);
  if (market) return { page: 'market', address: safeDecode(market[1]!) };
  if (pathname === '/leaderboard' || pathname === '/leaderboard/') return { page: 'leaderboard' };
  if (pathname === '/discover' || pathname === '/discover/') return { page: 'discover' };
  const profile = /^\/profiles\/([^/]+)\/?$/.exec(pathname);
  if (profile) return { page: 'profile', address: safeDecode(profile[1]!) };
  if (pathname === '/portfolio' || pathname === '/portfolio/') return { page: 'portfolio' };
  if (pathname === '/buy' || pathname === '/buy/') return { page: 'buy' };
  return { page: 'notFound' };
}

/** A malformed escape stays as it is (the page then refuses it as no address or no market) instead of throwing. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const CHANGE = 'svc:navigate';

export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current location; re-renders on navigate() and on back/forward. */
export function useLocation(): { pathname: string; search: string } {
  const read = () => ({ pathname: location.pathname, search: location.search });
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const update = () => setLoc(read());
    window.addEventListener(CHANGE, update);
    window.addEventListener('popstate', update);
    return () => {
      window.removeEventListener(CHANGE, update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

/** A click on an in-app link: navigate without a reload (a modified click keeps the browser's own behaviour). */
export function onLinkClick(event: MouseEvent): void {
  const a = (event.target as Element | null)?.closest('a');
  if (!a || a.target || a.hasAttribute('download') || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  // A link within the page (the skip link) is the browser's.
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
  window.scrollTo(0, 0);
}
