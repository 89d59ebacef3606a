// The market page's trade panel, its own chunk (docs/web.md "Size"): the markets page's first load does not carry it.
import { lazyComponent } from '../components/lazy.tsx';

export const TradePanel = lazyComponent(() => import('./trade-panel.tsx').then((m) => m.TradePanel));
