// GET /events/discovery (spec: the catalog and the reconnect protocol, then subscribe): the event kinds with their
// data fields, the envelope, the WebSocket and SSE transports with their messages, filters, resume, heartbeats and
// limits (docs/events.md). Public.
import { z } from 'zod';
import { EVENT_KINDS } from '../../../core/events/kinds.ts';
import { SSE_PATH, WS_PATH } from '../../events/transports.ts';
import { defineCapability } from '../types.ts';

export const eventsDiscovery = defineCapability({
  surface: 'agent',
  method: 'GET',
  path: '/events/discovery',
  category: 'events',
  summary: 'How to listen: event kinds, envelope, WebSocket and SSE',
  description:
    'The catalog of event kinds (each with its data fields as JSON Schema and whether it is private to one agent), the envelope every transport delivers, the WebSocket URL with its subscribe, unsubscribe and ping messages, the SSE URL with the same filters, the resume protocol (by outbox sequence), heartbeats and limits. Webhooks: GET /webhooks/discovery.',
  tier: null,
  rateClass: 'read',
  idempotent: true,
  mcp: { tool: 'svc_get_events_discovery' },
  output: z.looseObject({ envelope: z.looseObject({}), kinds: z.array(z.looseObject({ type: z.string(), private: z.boolean() })), transports: z.looseObject({}) }),
  outputName: 'EventsDiscovery',
  errors: [],
  handler: async (ctx) => {
    const base = ctx.documents.site.publicBaseUrl;
    const wsBase = base.replace(/^http/, 'ws');
    return {
      envelope: {
        description: 'Every event, on every transport: the spec\'s required fields, the outbox sequence, and the kind\'s own fields in data.',
        fields: {
          id: 'string, stable per event (evt_<sequence>): dedupe by it',
          type: 'string, the kind',
          sequence: 'string, the outbox sequence: global, strictly increasing, gap-free; resume from the last one you handled',
          timestamp: 'ISO 8601, when the event was written',
          chainId: 'integer, or null for an event of no chain',
          marketAddress: 'lowercase address, or null for an event of no market (negotiation.countered, execution:report)',
          private: 'boolean: true for an event only its agent receives',
          data: 'object: the kind\'s fields (kinds[].data)',
        },
      },
      kinds: EVENT_KINDS.map((k) => ({ ...k })),
      filters: {
        kinds: 'event kinds, exact or a prefix ending in .* (market.*); none: every kind',
        markets: 'market addresses (at most 100); none: every market',
        creator: 'a wallet: only events of markets it created (a market it creates while subscribed joins with its market.live)',
        includePrivate: 'with an API key, the key\'s agent\'s private events too (default true); never anyone else\'s',
        fromSequence: 'resume after this sequence (the last one you handled); absent: new events from now',
      },
      transports: {
        websocket: {
          url: `${wsBase}${WS_PATH}`,
          authentication: 'optional: Authorization: Bearer <API key> (or X-API-Key) on the upgrade request; without a key, public events only',
          clientMessages: {
            subscribe: { op: 'subscribe', kinds: ['market.*'], markets: ['0x…'], creator: '0x…', includePrivate: true, fromSequence: '1234' },
            unsubscribe: { op: 'unsubscribe' },
            ping: { op: 'ping' },
          },
          serverMessages: {
            welcome: { op: 'welcome', authenticated: true, agentId: 'uuid or null', heartbeatMs: 15000 },
            subscribed: { op: 'subscribed', fromSequence: '1234', filter: {} },
            event: { op: 'event', event: 'the envelope' },
            heartbeat: { op: 'heartbeat', sequence: 'the last sequence handled', time: 'ISO 8601' },
            pong: { op: 'pong', sequence: '…' },
            unsubscribed: { op: 'unsubscribed', resumeFrom: '…' },
            closing: { op: 'closing', reason: 'slow_consumer | server_closing', resumeFrom: 'subscribe again with fromSequence = this' },
            error: { op: 'error', code: 'INVALID_PAYLOAD | MALFORMED_JSON | INTERNAL_ERROR', detail: '…' },
          },
          rules: 'one subscription per connection: a new subscribe replaces the last; a closed slow consumer gets close code 4008',
        },
        sse: {
          url: `${base}${SSE_PATH}`,
          query: 'kinds and markets comma-separated, creator, includePrivate (true|false), fromSequence; Last-Event-ID (the browser\'s reconnect) wins over fromSequence',
          authentication: 'optional: Authorization: Bearer <API key> (or X-API-Key)',
          frames: 'id: <sequence>, event: <kind>, data: <envelope JSON>; a comment ": heartbeat <sequence>" every heartbeat; "event: closing" with resumeFrom before the server ends a slow or closing stream',
        },
        webhooks: `${base}/api/agent/v1/webhooks/discovery`,
      },
      resume: 'Keep the sequence of the last event you handled. After a disconnect or a server restart, subscribe with fromSequence (SSE: Last-Event-ID) = that sequence: every later event arrives once, in order (at-least-once across your own crash: dedupe by id). Filtered-out events advance the position too.',
      heartbeats: { intervalMs: ctx.services.eventStreams.settings.heartbeatMs, meaning: 'the connection is alive; the sequence is how far the server read for you' },
      limits: { maxBufferedBytes: ctx.services.eventStreams.settings.maxBufferedBytes, markets: 100, kinds: 50, messageBytes: 65536, slowConsumer: 'closed with resumeFrom when its unsent buffer passes maxBufferedBytes; it never slows anyone else' },
      orderBookAcceleration: 'execution:report is pushed as an acceleration only: persist its data.seq and close every gap with POST /orderbook/events (svc_list_order_events), the truth.',
      restOnly: 'the transports are REST-only by the spec; this document is also an MCP tool',
    };
  },
});

export const EVENT_CAPABILITIES = [eventsDiscovery];
