// The app: header (navigation, language), the page of the current route, and the locale every page reads.
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { I18nContext, makeI18n, useI18n } from './i18n/i18n.ts';
import { initialLocale, LOCALES, type LocaleInfo } from './i18n/locales.ts';
import { enUS, type Messages } from './i18n/messages/en-US.ts';
import { LeaderboardPage } from './pages/leaderboard.tsx';
import { MarketPage } from './pages/market.tsx';
import { MarketsPage } from './pages/markets.tsx';
import { DiscoverPage, PortfolioPage, ProfilePage } from './pages/lazy-pages.tsx';
import { BuyPage } from './pages/lazy-buy.tsx';
import { onLinkClick, routeOf, useLocation, type Route } from './router.ts';
import { WalletButton } from './wallet/wallet-button.tsx';
import './styles.css';

const LOCALE_KEY = 'svc.locale';

function savedLocale(): string | null {
  try {
    return localStorage.getItem(LOCALE_KEY);
  } catch {
    return null;
  }
}

function App() {
  const [lang, setLang] = useState<{ info: LocaleInfo; messages: Messages | null }>(() => {
    const info = initialLocale(savedLocale(), navigator.languages ?? []);
    return { info, messages: info.code === 'en-US' ? enUS : null };
  });
  // A dictionary other than en-US arrives as its own chunk; until then the page keeps the words it has.
  const [shown, setShown] = useState<{ info: LocaleInfo; messages: Messages }>({ info: LOCALES[0]!, messages: enUS });
  useEffect(() => {
    let live = true;
    void (lang.messages ? Promise.resolve(lang.messages) : lang.info.load()).then((messages) => {
      if (!live) return;
      setShown({ info: lang.info, messages });
      document.documentElement.lang = lang.info.code;
      document.documentElement.dir = lang.info.dir;
    });
    return () => {
      live = false;
    };
  }, [lang]);
  const i18n = useMemo(() => makeI18n(shown.info, shown.messages), [shown]);
  const choose = (code: string) => {
    const info = LOCALES.find((l) => l.code === code);
    if (!info) return;
    try {
      localStorage.setItem(LOCALE_KEY, code);
    } catch {
      // a browser that keeps nothing still switches for this visit
    }
    setLang({ info, messages: null });
  };

  useEffect(() => {
    document.addEventListener('click', onLinkClick);
    return () => document.removeEventListener('click', onLinkClick);
  }, []);
  const loc = useLocation();
  const route = routeOf(loc.pathname);
  const { t } = i18n;
  return (
    <I18nContext.Provider value={i18n}>
      <div class="shell">
        <a class="skip" href="#main">
          {t('app.skip')}
        </a>
        <header class="topbar">
          <a href="/" class="brand">
            {t('app.name')}
          </a>
          <nav aria-label={t('nav.main')} class="topnav">
            <a href="/" aria-current={route.page === 'markets' || route.page === 'market' ? 'page' : undefined}>
              {t('nav.markets')}
            </a>
            <a href="/leaderboard" aria-current={route.page === 'leaderboard' ? 'page' : undefined}>
              {t('nav.leaderboard')}
            </a>
            <a href="/discover" aria-current={route.page === 'discover' ? 'page' : undefined}>
              {t('nav.discover')}
            </a>
            <a href="/portfolio" aria-current={route.page === 'portfolio' ? 'page' : undefined}>
              {t('nav.portfolio')}
            </a>
            <a href="/buy" aria-current={route.page === 'buy' ? 'page' : undefined}>
              {t('nav.buy')}
            </a>
          </nav>
          <WalletButton />
          <div class="locale">
            <label for="locale-select" class="visually-hidden">
              {t('locale.label')}
            </label>
            <select id="locale-select" value={shown.info.code} onChange={(e) => choose(e.currentTarget.value)} data-testid="locale-select">
              {LOCALES.map((l) => (
                <option key={l.code} value={l.code} lang={l.code}>
                  {l.name}
                </option>
              ))}
            </select>
          </div>
        </header>
        <main id="main" tabIndex={-1}>
          <Page route={route} search={loc.search} />
        </main>
      </div>
    </I18nContext.Provider>
  );
}

function Page({ route, search }: { route: Route; search: string }) {
  const { t } = useI18n();
  switch (route.page) {
    case 'markets':
      return <MarketsPage search={search} />;
    case 'market':
      return <MarketPage key={route.address} address={route.address} />;
    case 'leaderboard':
      return <LeaderboardPage />;
    case 'discover':
      return <DiscoverPage />;
    case 'profile':
      return <ProfilePage key={route.address} address={route.address} />;
    case 'portfolio':
      return <PortfolioPage />;
    case 'buy':
      return <BuyPage search={search} />;
    default:
      return (
        <div class="page">
          <h1>{t('notFound.title')}</h1>
          <p>{t('notFound.body')}</p>
          <a href="/">{t('market.back')}</a>
        </div>
      );
  }
}

render(<App />, document.getElementById('app')!);
