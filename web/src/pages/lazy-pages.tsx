// The pages and sections that load as their own chunks (docs/web.md "Size"): discover, profiles, the portfolio, the
// market page's extras and its resolution actions are not part of the markets page's first load.
import { lazyComponent } from '../components/lazy.tsx';
import { Loading } from '../components/status.tsx';
import { useI18n } from '../i18n/i18n.ts';

const DiscoverLoading = () => <Loading label={useI18n().t('discover.loading')} />;
const ProfileLoading = () => <Loading label={useI18n().t('profile.loading')} />;
const PortfolioLoading = () => <Loading label={useI18n().t('portfolio.loading')} />;

export const DiscoverPage = lazyComponent(() => import('./discover.tsx').then((m) => m.DiscoverPage), DiscoverLoading);
export const ProfilePage = lazyComponent(() => import('./profile.tsx').then((m) => m.ProfilePage), ProfileLoading);
export const PortfolioPage = lazyComponent(() => import('./portfolio.tsx').then((m) => m.PortfolioPage), PortfolioLoading);
export const ResolutionActions = lazyComponent(() => import('./resolution-actions.tsx').then((m) => m.ResolutionActions));
export const MarketMainExtras = lazyComponent(() => import('./market-extras.tsx').then((m) => m.MarketMainExtras));
export const MarketSideExtras = lazyComponent(() => import('./market-extras.tsx').then((m) => m.MarketSideExtras));
