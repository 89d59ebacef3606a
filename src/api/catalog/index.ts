// The catalog: the one list of capabilities. Adding an operation is one file plus one line here.
import type { Capability } from './types.ts';
import { getTime } from './system/time.ts';
import { getHealth } from './system/health.ts';
import { discoverCapabilities } from './discovery/capabilities.ts';
import { discoverChains } from './discovery/chains.ts';
import { discoverCollateral } from './discovery/collateral.ts';
import { discoverContracts } from './discovery/contracts.ts';
import { discoverMarketStates } from './discovery/market-states.ts';
import { discoverFees } from './discovery/fees.ts';
import { discoverRules } from './discovery/rules.ts';
import { discoverRelease } from './discovery/release.ts';
import { discoverTokenRelease } from './discovery/token-release.ts';
import { discoverRenderers } from './discovery/renderers.ts';
import { discoverTheses } from './discovery/theses.ts';
import { MARKET_READ_CAPABILITIES } from './markets/reads.ts';
import { getTransactionAgent, getTransactionConsumer } from './transactions/status.ts';
import { agentOpenApi, consumerOpenApi } from './docs/openapi.ts';
import { catalogJson } from './docs/catalog-json.ts';
import { skillJson } from './docs/skill-json.ts';
import { createAuthNonce } from './auth/nonce.ts';
import { verifySiwe } from './auth/verify.ts';
import { getWalletSession } from './auth/session.ts';
import { logoutWalletSession } from './auth/logout.ts';
import { register } from './identity/register.ts';
import { confirmEmailLink } from './identity/confirm-email-link.ts';
import { resendEmailLinks } from './identity/resend-email-links.ts';
import { humanCheckChallenge } from './identity/human-check-challenge.ts';
import { rotateKey } from './identity/rotate-key.ts';
import { recoverKey } from './identity/recover-key.ts';
import { bindEmail } from './identity/bind-email.ts';
import { bindWallet } from './identity/bind-wallet.ts';
import { getMe } from './identity/me.ts';
import { authDiscovery } from './identity/auth-discovery.ts';
import { mcpDiscovery } from './identity/mcp-discovery.ts';
import { IDENTITY_LINK_CAPABILITIES } from './identity-links/index.ts';
import { negotiatePreflight } from './negotiate/preflight.ts';
import { negotiatePropose } from './negotiate/propose.ts';
import { getNegotiation, negotiateAccept, negotiateReject } from './negotiate/settle.ts';
import { negotiateCommitDeploy, negotiatePrepareDeploy } from './negotiate/deploy.ts';
import { tradePrepare, tradeQuote } from './trade/trade.ts';
import { getCreatorFunds } from './trade/creator-funds.ts';
import { getPortfolioPositions } from './portfolio/positions.ts';
import { getAgentLedgerProof, getLedgerProof } from './ledger/proof.ts';
import { FAUCET_CAPABILITIES } from './faucet/faucet.ts';
import { FILL_PACK_CAPABILITIES } from './orderbook/fill-packs.ts';
import { ORDERBOOK_CAPABILITIES } from './orderbook/orders.ts';
import { RESOLUTION_CAPABILITIES } from './resolution/index.ts';
import { CLAIM_CAPABILITIES } from './claims/claims.ts';
import { EVENT_CAPABILITIES } from './events/discovery.ts';
import { WEBHOOK_CAPABILITIES } from './webhooks/index.ts';
import { MARKET_DATA_CAPABILITIES } from './market-data/index.ts';
// Reputation and profiles (issue 20).
import { REPUTATION_CAPABILITIES } from './reputation/index.ts';
import { ECONOMY_CAPABILITIES } from './economy/economy.ts';
import { PARTICIPATION_CAPABILITIES } from './participation/participation.ts';
import { getProfile } from './profile/profile.ts';
// Leaderboards and P&L history (issue 20).
import { LEADERBOARD_CAPABILITIES } from './leaderboard/leaderboard.ts';
import { getProfilePnlHistory } from './profile/pnl-history.ts';

export const CATALOG: readonly Capability[] = [
  getTime,
  getHealth,
  discoverCapabilities,
  discoverChains,
  discoverCollateral,
  discoverContracts,
  discoverMarketStates,
  discoverFees,
  discoverRules,
  discoverRelease,
  discoverTokenRelease,
  discoverRenderers,
  ...MARKET_READ_CAPABILITIES,
  discoverTheses,
  getTransactionAgent,
  getTransactionConsumer,
  agentOpenApi,
  consumerOpenApi,
  catalogJson,
  skillJson,
  createAuthNonce,
  verifySiwe,
  getWalletSession,
  logoutWalletSession,
  register,
  confirmEmailLink,
  resendEmailLinks,
  humanCheckChallenge,
  rotateKey,
  recoverKey,
  bindEmail,
  bindWallet,
  getMe,
  authDiscovery,
  mcpDiscovery,
  ...IDENTITY_LINK_CAPABILITIES,
  negotiatePreflight,
  negotiatePropose,
  negotiateAccept,
  negotiateReject,
  getNegotiation,
  negotiatePrepareDeploy,
  negotiateCommitDeploy,
  tradeQuote,
  tradePrepare,
  getCreatorFunds,
  getPortfolioPositions,
  getLedgerProof,
  getAgentLedgerProof,
  ...FAUCET_CAPABILITIES,
  ...ORDERBOOK_CAPABILITIES,
  ...FILL_PACK_CAPABILITIES,
  ...RESOLUTION_CAPABILITIES,
  ...CLAIM_CAPABILITIES,
  ...EVENT_CAPABILITIES,
  ...WEBHOOK_CAPABILITIES,
  ...MARKET_DATA_CAPABILITIES,
  ...REPUTATION_CAPABILITIES,
  ...ECONOMY_CAPABILITIES,
  ...PARTICIPATION_CAPABILITIES,
  getProfile,
  ...LEADERBOARD_CAPABILITIES,
  getProfilePnlHistory,
];

/** AgentCapability objects exactly as the spec shapes them. */
export function agentCapabilities(catalog: readonly Capability[]) {
  return catalog
    .filter((c) => c.surface === 'agent')
    .map((c) => ({
      name: c.name,
      category: c.category,
      // Public capabilities need no key; they advertise the lowest tier (docs/http.md).
      requiredTier: c.tier ?? ('read-only' as const),
      description: c.description,
      method: c.method,
      path: c.path,
      idempotent: c.idempotent,
      surface: 'agent' as const,
    }));
}

/** Agent capabilities kept off MCP by the spec, each with its reason and path. */
export function restOnlyCapabilities(catalog: readonly Capability[]) {
  return catalog.flatMap((c) =>
    c.surface === 'agent' && c.mcp && 'restOnly' in c.mcp ? [{ capability: c.name, reason: c.mcp.restOnly, paths: [c.fullPath] }] : [],
  );
}
