// What one grant pays and how often (GET /faucet, skill.md, docs/faucet.md): the numbers of core/faucet.ts in base
// units of the tokens this service runs on.
import { baseUnits, ETH_DECIMALS, FAUCET_ASSETS, FAUCET_GRANT_WHOLE, FAUCET_LIMITS, FAUCET_WINDOW_MS, type FaucetAsset, type FaucetOffReason } from '../../core/faucet.ts';
import type { FaucetDeps } from './deps.ts';

export interface FaucetAmount {
  asset: FaucetAsset;
  token: string | null;
  decimals: number;
  /** Base units. */
  amount: bigint;
}

export interface FaucetTerms {
  enabled: boolean;
  reason: FaucetOffReason | null;
  chainId: number;
  /** Empty when the faucet is off. */
  amounts: FaucetAmount[];
  windowSeconds: number;
  perWallet: number;
  perKey: number;
}

/** The amounts of one grant, in base units (each token's decimals read from the chain at start). */
export function grantAmounts(deps: Pick<FaucetDeps, 'collateral'>): FaucetAmount[] {
  return FAUCET_ASSETS.map((asset) => {
    if (asset === 'ETH') return { asset, token: null, decimals: ETH_DECIMALS, amount: baseUnits(FAUCET_GRANT_WHOLE.ETH, ETH_DECIMALS) };
    const token = deps.collateral.find((c) => c.symbol === asset);
    if (!token) throw new Error(`faucet: no ${asset} collateral token is configured`);
    return { asset, token: token.token.toLowerCase(), decimals: token.decimals, amount: baseUnits(FAUCET_GRANT_WHOLE[asset], token.decimals) };
  });
}

export function faucetTerms(deps: Pick<FaucetDeps, 'collateral' | 'chainId' | 'off'>): FaucetTerms {
  return {
    enabled: deps.off === null,
    reason: deps.off,
    chainId: deps.chainId,
    amounts: deps.off === null ? grantAmounts(deps) : [],
    windowSeconds: FAUCET_WINDOW_MS / 1000,
    perWallet: FAUCET_LIMITS.perWallet,
    perKey: FAUCET_LIMITS.perKey,
  };
}
