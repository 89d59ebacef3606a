/**
 * MCP tool names. The spec names some tools; every other tool's name follows from its REST twin
 * by one rule (docs/mcp.md "Tool names"), so an agent that knows a path knows its tool:
 *
 *   svc_ + the path's words (the surface prefix, a leading /api and a .json suffix dropped;
 *   '-' and '.' split words; a path parameter is dropped, or becomes by_<param> when it ends the
 *   path), with get_ in front for a GET whose first word is not already a verb ('discover').
 *
 * e.g. GET /discover/markets/:address → svc_discover_markets_by_address,
 *      POST /negotiate/:id/prepare-deploy → svc_negotiate_prepare_deploy, GET /me → svc_get_me.
 */

/** Tool names the spec gives, by capability name ('METHOD /path'); they win over the rule. */
export const SPEC_TOOL_NAMES: Readonly<Record<string, string>> = {
  'GET /agents/me/identity': 'svc_get_agent_identity',
  'POST /identity/link-code': 'svc_generate_link_code',
  'POST /identity/link-consent': 'svc_submit_link_consent',
  'GET /identity/pending-links': 'svc_list_pending_link_consents',
  'POST /identity/approve-links': 'svc_approve_link_consents',
  'POST /identity/unlink': 'svc_unlink_identity_wallets',
  'POST /orderbook/events': 'svc_list_order_events',
  'POST /orderbook/confirm-cancel': 'svc_confirm_order_cancel',
};

/** First path words that already are verbs, so a GET needs no get_. */
const VERB_WORDS = new Set(['discover']);

/** The rule's name for a capability's REST path (relative to its surface prefix, or absolute /api/…). */
export function ruleToolName(method: string, path: string): string {
  const segments = path.replace(/^\/api\//, '/').replace(/\.json$/, '').split('/').filter(Boolean);
  const words: string[] = [];
  segments.forEach((segment, i) => {
    if (segment.startsWith(':')) {
      if (i === segments.length - 1) words.push('by', snake(segment.slice(1)));
      return;
    }
    words.push(...segment.split(/[-.]/).map(snake));
  });
  if (method === 'GET' && !VERB_WORDS.has(words[0] ?? '')) words.unshift('get');
  return `svc_${words.join('_')}`;
}

export const toolNameOf = (method: string, path: string): string => SPEC_TOOL_NAMES[`${method} ${path}`] ?? ruleToolName(method, path);

const snake = (word: string): string => word.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
