/**
 * Prepares a challenge (POST /markets/{address}/resolution/challenge/prepare): the transactions the challenger's own
 * wallet sends, since the challenge bond is its money — an approval of the bond to the resolver when the allowance is
 * short, then challenge(market, counterOutcome). Checked against the resolver's record on chain (the phase, the
 * window by chain time) and the wallet's PM balance; changes nothing (docs/resolution.md "Actions").
 */
import { encodeFunctionData, erc20Abi, type Address } from 'viem';
import { abiWithAllErrors } from '../../chain/artifacts.ts';
import { problem } from '../../core/error-codes.ts';
import type { Principal } from '../../core/principal.ts';
import { actingWallet, chainNow, type VoteDeps } from './deps.ts';
import { onChainRecord } from './on-chain-record.ts';
import { resolvableMarket } from './resolvable-market.ts';

export interface PrepareChallengeInput {
  market: string;
  counterOutcome: number;
  /** The challenger: the wallet an MCP call proved, or else the key's bound wallet. */
  principal: Principal;
  provenWallet: string | null;
}

export type PrepareChallengeError = 'MARKET_NOT_FOUND' | 'INVALID_PAYLOAD' | 'RESOLUTION_STEP_REFUSED' | 'CHALLENGE_WINDOW_CLOSED' | 'INSUFFICIENT_BALANCE' | 'WALLET_NOT_BOUND';

export interface PreparedTransaction {
  purpose: 'approve' | 'challenge';
  chainId: number;
  from: string;
  to: string;
  data: string;
  value: '0';
}

export interface PreparedChallenge {
  market: string;
  chainId: number;
  wallet: string;
  proposedOutcome: number;
  counterOutcome: number;
  bond: bigint;
  bondToken: string;
  challengeDeadline: Date;
  /** In order: the approval (only when the allowance is short), then the challenge. */
  transactions: PreparedTransaction[];
}

export async function prepareChallenge(deps: VoteDeps, input: PrepareChallengeInput): Promise<PreparedChallenge> {
  const market = await resolvableMarket(deps, input.market);
  if (input.counterOutcome > market.outcomeCount) throw problem('INVALID_PAYLOAD', `counterOutcome must be 0 (void) or 1..${market.outcomeCount}`, { errors: [{ path: 'body.counterOutcome', message: 'no such outcome' }] });
  const record = await onChainRecord(deps, market.address);
  if (record.phase !== 'proposed') throw problem('RESOLUTION_STEP_REFUSED', `market ${market.address} has no proposal to challenge (resolver phase: ${record.phase})`);
  const now = Math.floor((await chainNow(deps)).getTime() / 1000);
  if (now >= record.challengeDeadline) throw problem('CHALLENGE_WINDOW_CLOSED', `the challenge window closed at ${new Date(record.challengeDeadline * 1000).toISOString()} (chain time)`);
  if (input.counterOutcome === record.proposedOutcome) throw problem('INVALID_PAYLOAD', `counterOutcome ${input.counterOutcome} is the proposed outcome`, { errors: [{ path: 'body.counterOutcome', message: 'must differ from the proposal' }] });

  const abi = abiWithAllErrors('MarketResolver');
  const [bond, bondToken] = (await deps.guard(() =>
    Promise.all([deps.client.readContract({ address: deps.resolver, abi, functionName: 'challengeBond' }), deps.client.readContract({ address: deps.resolver, abi, functionName: 'bondToken' })]),
  )) as [bigint, Address];
  const wallet = (await actingWallet(deps, input.principal, input.provenWallet, 'a challenge is sent and its bond paid by a wallet')) as Address;
  const [balance, allowance] = await deps.guard(() =>
    Promise.all([
      deps.client.readContract({ address: bondToken, abi: erc20Abi, functionName: 'balanceOf', args: [wallet] }),
      deps.client.readContract({ address: bondToken, abi: erc20Abi, functionName: 'allowance', args: [wallet, deps.resolver] }),
    ]),
  );
  if (balance < bond) throw problem('INSUFFICIENT_BALANCE', `the challenge bond is ${bond} PM base units; wallet ${wallet} holds ${balance}`);

  const tx = (purpose: PreparedTransaction['purpose'], to: string, data: string): PreparedTransaction => ({ purpose, chainId: deps.chainId, from: wallet, to: to.toLowerCase(), data, value: '0' });
  const transactions = [
    ...(allowance < bond ? [tx('approve', bondToken, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [deps.resolver, bond] }))] : []),
    tx('challenge', deps.resolver, encodeFunctionData({ abi, functionName: 'challenge', args: [market.address as Address, input.counterOutcome] } as never)),
  ];
  return { market: market.address, chainId: deps.chainId, wallet, proposedOutcome: record.proposedOutcome, counterOutcome: input.counterOutcome, bond, bondToken: bondToken.toLowerCase(), challengeDeadline: new Date(record.challengeDeadline * 1000), transactions };
}
