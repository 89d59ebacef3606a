/**
 * The approval recipes of GET /discover/contracts and the router interface they point at. Trading approvals
 * name the per-collateral router as spender (it pulls collateral on buys and outcome shares on sells); the
 * 409 of POST /trade/prepare carries these same recipes, built by the same functions.
 */
import { encodeFunctionData, erc20Abi, maxUint256, toFunctionSelector, type AbiFunction, type Address, type Hex } from 'viem';
import { loadArtifact } from '../../chain/artifacts.ts';
import type { CollateralSymbol, MarketsLane } from '../../chain/markets-lane.ts';

export type ApprovalReason = 'buy_collateral' | 'sell_outcome_token';

export interface ApprovalRecipe {
  kind: 'erc20_approve' | 'erc1155_set_approval_for_all';
  reason: ApprovalReason;
  chainId: number;
  token: Address;
  spender: Address;
  /** MAX uint256, only for erc20_approve. */
  amount?: string;
  /** Ready to sign and send from the wallet that grants it: the call to `token` (approvalCalldata). */
  transaction: { chainId: number; to: Address; data: Hex; value: '0' };
}

/** Bumped when the router's external interface changes (a new router deployment). */
export const ROUTER_ABI_VERSION = '1.0.0';

let cachedInterface: RouterInterface | undefined;

export interface RouterInterface {
  abiVersion: string;
  runtimeCodeHash: `0x${string}`;
  functions: { executeTradeIntent: { signature: string; selector: string }; executeBasketIntent: { signature: string; selector: string } };
}

export function routerInterface(): RouterInterface {
  if (cachedInterface) return cachedInterface;
  const artifact = loadArtifact('TradeRouter');
  const fn = (name: string) => {
    const item = artifact.abi.find((i): i is AbiFunction => i.type === 'function' && i.name === name);
    if (!item) throw new Error(`TradeRouter artifact has no ${name}`);
    const signature = `${name}(${item.inputs.map(canonicalType).join(',')})`;
    return { signature, selector: toFunctionSelector(signature) };
  };
  cachedInterface = {
    abiVersion: ROUTER_ABI_VERSION,
    runtimeCodeHash: artifact.runtimeCodeHash,
    functions: { executeTradeIntent: fn('executeTradeIntent'), executeBasketIntent: fn('executeBasketIntent') },
  };
  return cachedInterface;
}

function canonicalType(param: { type: string; components?: readonly { type: string; components?: unknown }[] }): string {
  if (param.type.startsWith('tuple')) {
    const suffix = param.type.slice('tuple'.length);
    return `(${(param.components ?? []).map((c) => canonicalType(c as typeof param)).join(',')})${suffix}`;
  }
  return param.type;
}

export function collateralApproval(chainId: number, token: Address, router: Address): ApprovalRecipe {
  return withTransaction({ kind: 'erc20_approve', reason: 'buy_collateral', chainId, token, spender: router, amount: maxUint256.toString() });
}

export function outcomeTokenApproval(chainId: number, outcomeToken: Address, router: Address): ApprovalRecipe {
  return withTransaction({ kind: 'erc1155_set_approval_for_all', reason: 'sell_outcome_token', chainId, token: outcomeToken, spender: router });
}

const withTransaction = (recipe: Omit<ApprovalRecipe, 'transaction'>): ApprovalRecipe => ({
  ...recipe,
  transaction: { chainId: recipe.chainId, to: recipe.token, data: approvalCalldata(recipe), value: '0' },
});

/** Both recipes for every collateral given (trading is enabled for all reviewed collaterals). */
export function tradingApprovals(chainId: number, lane: MarketsLane, collaterals: readonly { symbol: CollateralSymbol; token: Address }[]): ApprovalRecipe[] {
  return collaterals.flatMap((c) => [collateralApproval(chainId, c.token, lane.routers[c.symbol]), outcomeTokenApproval(chainId, lane.outcomeToken, lane.routers[c.symbol])]);
}

/** The calldata a wallet sends to `recipe.token` to grant an approval recipe (trading or creation). */
export function approvalCalldata(recipe: { kind: 'erc20_approve' | 'erc1155_set_approval_for_all'; spender: Address; amount?: string }): Hex {
  return recipe.kind === 'erc20_approve'
    ? encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [recipe.spender, BigInt(recipe.amount ?? maxUint256)] })
    : encodeFunctionData({ abi: loadArtifact('OutcomeToken').abi, functionName: 'setApprovalForAll', args: [recipe.spender, true] });
}
