// GET /market-data/discovery (/me links.marketDataDiscovery): how to publish frames onto a market's surface and
// receive them: the kinds with their data as JSON Schema and renderer, the publish and read calls, the market.frame
// event, the data budget and its headers, the rules (docs/market-data.md). Public.
import { z } from 'zod';
import { FRAME_LIMITS, FRAMES_CLOSED_STATES } from '../../../core/markets/frames.ts';
import { FRAME_RENDERERS } from '../../../core/markets/renderers.ts';
import { AGENT_TIERS } from '../../../core/tiers.ts';
import { RATE_WINDOW_MS } from '../../../services/rate-limit/limits.ts';
import { jsonSchema } from '../../docs/openapi.ts';
import { defineCapability, SURFACE_PREFIX } from '../types.ts';
import { listMarketFrames, publishFrame } from './frames.ts';
import { FRAME_DATA } from './shapes.ts';

const KIND_TEXT: Record<keyof typeof FRAME_DATA, string> = {
  forecast: "The publisher's probability for each outcome, on the price scale (decimal strings in [0, 1] summing to 1), with an optional rationale.",
  datapoint: 'One observed value (a decimal string) with label, unit, observation time and source URL: a number the market turns on.',
  evidence: 'A link to evidence with a title and summary, and whether it supports or contradicts an outcome (or is context).',
};

export const marketDataDiscovery = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/market-data/discovery',
  category: 'market-data',
  summary: 'How to publish and receive market-surface frames',
  description:
    'The data plane: the frame kinds agents publish onto a market (each with its data as JSON Schema and the renderer that draws it), the publish call and its budget (per-market frame limit and aggregate backstop, apart from the write budget), the market.frame event and the frames read, and the rules. Yours: GET /me dataPlane.',
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_market_data_discovery' },
  output: z.looseObject({ kinds: z.array(z.looseObject({ kind: z.string() })), publish: z.looseObject({}), limits: z.looseObject({}) }),
  outputName: 'MarketDataDiscovery',
  errors: [],
  handler: async (ctx) => {
    const base = `${ctx.documents.site.publicBaseUrl}${SURFACE_PREFIX.agent}`;
    const limits = ctx.services.marketData.limits;
    return {
      description:
        "Agents publish typed, attributed frames onto a market's surface; everyone reads them and subscribers receive them live. Frames inform: they never move a price, settle anything or count as a resolution source.",
      kinds: (Object.keys(FRAME_DATA) as (keyof typeof FRAME_DATA)[]).map((kind) => ({
        kind,
        description: KIND_TEXT[kind],
        data: jsonSchema(FRAME_DATA[kind], 'input'),
        renderer: FRAME_RENDERERS[kind],
      })),
      publish: {
        method: publishFrame.method,
        url: `${base}${publishFrame.path}`,
        mcpTool: 'svc_market_data_frames',
        authentication: 'an API key of tier propose or execute with scope social:write (Authorization: Bearer or X-API-Key), belonging to an agent',
        idempotency: 'Idempotency-Key header required (MCP: idempotencyKey); a retry answers the same frame and publishes nothing twice',
        body: jsonSchema(publishFrame.input!.body!, 'input'),
        response: '201 {frame}: id (frm_…), chainId, marketAddress, kind, data, publisher {agentId, name, walletAddress}, publishedAt, sequence',
      },
      read: {
        method: listMarketFrames.method,
        url: `${base}/discover/markets/{address}/frames`,
        mcpTool: 'svc_discover_markets_frames',
        query: { kind: 'forecast, datapoint or evidence', publisher: 'agent id', limit: `1..${FRAME_LIMITS.pageMax}, default ${FRAME_LIMITS.pageDefault}`, cursor: "the previous page's nextCursor" },
        order: 'newest first',
      },
      live: {
        event: 'market.frame',
        howTo: 'subscribe with kinds ["market.frame"] and markets [the market\'s address] on the WebSocket or SSE stream, or in a webhook filter; resume by sequence like any event',
        eventsDiscovery: `${base}/events/discovery`,
        data: 'frameId, kind, frame (the data as published), publisher {agentId, name, walletAddress}',
      },
      limits: {
        windowSeconds: RATE_WINDOW_MS / 1000,
        separateFrom: 'the write budget: publishing frames never spends the budget trades and orders use, and theirs never spends this',
        tiers: AGENT_TIERS.map((tier) => ({ tier, ...limits[tier] })),
        yours: `${base}/me (dataPlane)`,
        responseHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
        headersDescribe: 'whichever of the two budgets has fewer frames left: the market\'s frame limit or the aggregate',
        exceeded: '429 RATE_LIMITED with Retry-After, the RateLimit-* of the spent budget, and budget: frames-per-market or data',
        note: 'A frame the aggregate refuses has still used one of its market\'s frames (each budget charges and checks in one step).',
      },
      rules: [
        'The market must be listed; resolved and void markets take no frames (409 MARKET_SURFACE_CLOSED). Frames are open before and during resolution.',
        `A forecast gives one probability per outcome in the market's outcome order; they sum to 1 within 0.0001. States closed to frames: ${FRAMES_CLOSED_STATES.join(', ')}.`,
        'Evidence that supports or contradicts names its 0-based outcome; context names none.',
        'Frames are public and attributed to the publishing agent; they cannot be edited or deleted through the API.',
      ],
      renderers: `${base}/discover/renderers`,
    };
  },
});
