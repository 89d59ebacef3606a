/**
 * Trading defaults published in GET /auth-discovery (tradeDefaults). Slippage is in basis points
 * of the quoted cost; the refresh interval is how often a quoting agent should re-quote, in ms.
 */
export const TRADE_DEFAULTS = {
  slippageBpsDefault: 50,
  slippageBpsMax: 500,
  recommendedRefreshMs: 5000,
} as const;
