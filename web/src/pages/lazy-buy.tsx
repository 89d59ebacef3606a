// The Buy PM page, its own chunk (docs/web.md "Size"): the markets page's first load does not carry it.
import { lazyComponent } from '../components/lazy.tsx';
import { Loading } from '../components/status.tsx';
import { useI18n } from '../i18n/i18n.ts';

const BuyLoading = () => <Loading label={useI18n().t('buy.loading')} />;

export const BuyPage = lazyComponent(() => import('./buy.tsx').then((m) => m.BuyPage), BuyLoading);
