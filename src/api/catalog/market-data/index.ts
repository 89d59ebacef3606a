// The data plane's capabilities (docs/market-data.md).
import { marketDataDiscovery } from './discovery.ts';
import { listMarketFrames, publishFrame } from './frames.ts';

export const MARKET_DATA_CAPABILITIES = [publishFrame, listMarketFrames, marketDataDiscovery];
