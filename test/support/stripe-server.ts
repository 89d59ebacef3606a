// A stand-in for Stripe's API on 127.0.0.1, speaking its wire format for the calls svc makes (create and retrieve a
// Checkout Session), so tests drive the real `stripe` client; and Stripe's side of webhooks, signed the way Stripe signs.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** A price_data line item as the server stored it (amounts in cents). */
export interface StoredLineItem {
  object: 'item';
  id: string;
  description: string;
  currency: string;
  quantity: number;
  amount_subtotal: number;
  amount_total: number;
  price: { object: 'price'; id: string; currency: string; unit_amount: number; product: string; type: 'one_time' };
}

/** A Checkout Session as Stripe returns it (the fields svc could read; the rest of Stripe's object is left out). */
export interface StoredSession {
  id: string;
  object: 'checkout.session';
  amount_subtotal: number;
  amount_total: number;
  cancel_url: string | null;
  client_reference_id: string | null;
  created: number;
  currency: string;
  customer: null;
  customer_email: string | null;
  expires_at: number;
  livemode: false;
  metadata: Record<string, string>;
  mode: 'payment';
  payment_intent: string | null;
  payment_method_types: string[];
  payment_status: 'paid' | 'unpaid' | 'no_payment_required';
  status: 'open' | 'complete' | 'expired';
  success_url: string | null;
  ui_mode: 'hosted';
  url: string | null;
  /** Expandable: only in an answer that asks `expand[]=line_items`. */
  line_items: { object: 'list'; data: StoredLineItem[]; has_more: false; url: string };
}

/** One API request the server answered, for assertions on what the client sent. */
export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  stripeVersion: string | null;
  userAgent: string | null;
  /** The form-decoded body (bracket keys nested), {} for a GET. */
  params: Record<string, unknown>;
  status: number;
}

export interface StripeServer {
  /** http://127.0.0.1:PORT, for `apiBase` / STRIPE_API_BASE. */
  url: string;
  port: number;
  secretKey: string;
  webhookSecret: string;
  sessions: Map<string, StoredSession>;
  requests: RecordedRequest[];
  /** The buyer paid: the session is complete and paid (the checkout link stops working, as on Stripe). */
  markPaid(id: string): void;
  /** The session expired unpaid. */
  expire(id: string): void;
  /** A webhook for the session as it is now, signed with the webhook secret; `type` defaults to checkout.session.completed. */
  webhookFor(id: string, type?: string): { payload: string; header: string };
  /**
   * The next API call answers `status` with a Stripe error body. It carries `Stripe-Should-Retry: false` (the client
   * does not retry it) unless `retryable`, and is not stored under the request's idempotency key (Stripe would replay
   * a 500 for the same key).
   */
  failNext(status: number, opts?: { retryable?: boolean }): void;
  close(): Promise<void>;
}

interface StripeErrorBody {
  type: 'invalid_request_error' | 'api_error' | 'card_error' | 'idempotency_error';
  message: string;
  code?: string;
  param?: string;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.message);
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let s = prefix;
  for (const b of bytes) s += ALPHANUMERIC[b % ALPHANUMERIC.length];
  return s;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const DAY_SECONDS = 24 * 3600;

const invalid = (message: string, param?: string, code = 'parameter_invalid'): ApiError =>
  new ApiError(400, { type: 'invalid_request_error', code, message, ...(param ? { param } : {}) });

/**
 * Stripe's form encoding back into objects: `line_items[0][price_data][unit_amount]=2500` → { line_items: [{ … }] }.
 * Values stay strings, as on the wire; numeric segments make arrays.
 */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!m) throw invalid(`Invalid parameter name: ${key}`, key);
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)];
    if (path.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) throw invalid(`Invalid parameter name: ${key}`, key);
    let node: Record<string, unknown> | unknown[] = root;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!;
      const last = i === path.length - 1;
      const slot: string | number = Array.isArray(node) ? (segment === '' ? node.length : Number(segment)) : segment;
      if (Array.isArray(node) && !Number.isInteger(slot)) throw invalid(`Invalid array index in ${key}`, key);
      const container = node as Record<string | number, unknown>;
      if (last) {
        container[slot] = value;
      } else {
        const next = path[i + 1]!;
        container[slot] ??= /^\d*$/.test(next) ? [] : {};
        node = container[slot] as Record<string, unknown> | unknown[];
      }
    }
  }
  return root;
}

const CREATE_PARAMS = new Set([
  'mode', 'line_items', 'client_reference_id', 'metadata', 'success_url', 'cancel_url', 'expand', 'expires_at',
  'customer_email', 'payment_method_types', 'payment_intent_data', 'locale',
]);

function asString(value: unknown, param: string, opts: { required?: boolean; max?: number } = {}): string | null {
  if (value === undefined || value === '') {
    if (opts.required) throw invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
    return null;
  }
  if (typeof value !== 'string') throw invalid(`Invalid string: ${param}`, param);
  if (opts.max !== undefined && value.length > opts.max) throw invalid(`Invalid string: ${value.slice(0, 20)}...; must be at most ${opts.max} characters`, param);
  return value;
}

function asInteger(value: unknown, param: string, min: number): number {
  if (value === undefined || value === '') throw invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw invalid(`Invalid integer: ${String(value)}`, param, 'parameter_invalid_integer');
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw invalid(`This value must be greater than or equal to ${min}.`, param, 'parameter_invalid_integer');
  return n;
}

function asUrl(value: unknown, param: string): string | null {
  const s = asString(value, param, { max: 5000 });
  if (s === null) return null;
  if (!URL.canParse(s) || !/^https?:/i.test(s)) throw invalid('Not a valid URL', param, 'url_invalid');
  return s;
}

function asRecord(value: unknown, param: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`Invalid hash`, param);
  return value as Record<string, unknown>;
}

function parseMetadata(value: unknown): Record<string, string> {
  const raw = asRecord(value, 'metadata');
  const keys = Object.keys(raw);
  if (keys.length > 50) throw invalid('You can have at most 50 metadata keys', 'metadata');
  const out: Record<string, string> = {};
  for (const k of keys) {
    if (k.length > 40) throw invalid(`Metadata keys must be at most 40 characters`, `metadata[${k}]`);
    const v = asString(raw[k], `metadata[${k}]`, { max: 500 });
    if (v !== null) out[k] = v; // an empty value unsets a key on Stripe
  }
  return out;
}

function parseLineItems(value: unknown): StoredLineItem[] {
  if (value === undefined) throw invalid('Missing required param: line_items.', 'line_items', 'parameter_missing');
  if (!Array.isArray(value) || value.length === 0) throw invalid('Invalid array', 'line_items');
  return value.map((raw, i): StoredLineItem => {
    const item = asRecord(raw, `line_items[${i}]`);
    if (item.price !== undefined) throw invalid('This stand-in supports price_data line items only', `line_items[${i}][price]`);
    if (item.price_data === undefined) throw invalid(`You must specify either \`price\` or \`price_data\` in line_items[${i}].`, `line_items[${i}]`, 'parameter_missing');
    const priceData = asRecord(item.price_data, `line_items[${i}][price_data]`);
    const currency = asString(priceData.currency, `line_items[${i}][price_data][currency]`, { required: true })!;
    if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}`, `line_items[${i}][price_data][currency]`);
    const unitAmount = asInteger(priceData.unit_amount, `line_items[${i}][price_data][unit_amount]`, 0);
    const productData = asRecord(priceData.product_data, `line_items[${i}][price_data][product_data]`);
    const name = asString(productData.name, `line_items[${i}][price_data][product_data][name]`, { required: true, max: 5000 })!;
    const quantity = asInteger(item.quantity, `line_items[${i}][quantity]`, 1);
    return {
      object: 'item',
      id: randomId('li_', 24),
      description: name,
      currency,
      quantity,
      amount_subtotal: unitAmount * quantity,
      amount_total: unitAmount * quantity,
      price: { object: 'price', id: randomId('price_', 24), currency, unit_amount: unitAmount, product: randomId('prod_', 14), type: 'one_time' },
    };
  });
}

function createSession(params: Record<string, unknown>, baseUrl: string): StoredSession {
  const unknown = Object.keys(params).find((k) => !CREATE_PARAMS.has(k));
  if (unknown) throw invalid(`Received unknown parameter: ${unknown}`, unknown, 'parameter_unknown');
  const mode = asString(params.mode, 'mode', { required: true });
  if (mode !== 'payment') throw invalid(`This stand-in supports mode=payment only, got ${mode}`, 'mode');
  const id = randomId('cs_test_', 58);
  const lineItems = parseLineItems(params.line_items);
  const currency = lineItems[0]!.currency;
  if (lineItems.some((li) => li.currency !== currency)) throw invalid('All line items must have the same currency', 'line_items');
  const total = lineItems.reduce((sum, li) => sum + li.amount_total, 0);
  const created = nowSeconds();
  const expiresAt = params.expires_at === undefined ? created + DAY_SECONDS : asInteger(params.expires_at, 'expires_at', created + 1800);
  if (expiresAt > created + DAY_SECONDS) throw invalid('The `expires_at` timestamp must be less than 24 hours from Checkout Session creation.', 'expires_at');
  return {
    id,
    object: 'checkout.session',
    amount_subtotal: total,
    amount_total: total,
    cancel_url: asUrl(params.cancel_url, 'cancel_url'),
    client_reference_id: asString(params.client_reference_id, 'client_reference_id', { max: 200 }),
    created,
    currency,
    customer: null,
    customer_email: asString(params.customer_email, 'customer_email', { max: 800 }),
    expires_at: expiresAt,
    livemode: false,
    metadata: parseMetadata(params.metadata),
    mode: 'payment',
    payment_intent: null,
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    status: 'open',
    success_url: asUrl(params.success_url, 'success_url'),
    ui_mode: 'hosted',
    url: `${baseUrl}/c/pay/${id}`,
    line_items: { object: 'list', data: lineItems, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` },
  };
}

/** The session as an API answer: `line_items` only when expanded, as on Stripe. */
function wire(session: StoredSession, expand: string[] = []): Record<string, unknown> {
  const { line_items, ...rest } = session;
  return expand.includes('line_items') ? { ...rest, line_items } : rest;
}

function expandOf(params: Record<string, unknown>): string[] {
  const e = params.expand;
  return Array.isArray(e) ? e.filter((x): x is string => typeof x === 'string') : [];
}

function errorForStatus(status: number): StripeErrorBody {
  if (status === 402) return { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' };
  if (status === 404) return { type: 'invalid_request_error', code: 'resource_missing', message: 'No such resource (injected failure).' };
  if (status === 429) return { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly (injected failure).' };
  if (status >= 500) return { type: 'api_error', message: 'An unknown error occurred (injected failure).' };
  return { type: 'invalid_request_error', message: `Injected failure with status ${status}.` };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null;
}

/** The API key of a request: Bearer, or Basic with the key as the user name (Stripe takes both). */
function apiKeyOf(req: IncomingMessage): string | null {
  const auth = header(req, 'authorization');
  if (!auth) return null;
  const bearer = /^Bearer\s+(.+)$/i.exec(auth);
  if (bearer) return bearer[1]!.trim();
  const basic = /^Basic\s+(.+)$/i.exec(auth);
  if (basic) return Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0] ?? null;
  return null;
}

const redact = (key: string) => `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;

export async function startStripeServer(): Promise<StripeServer> {
  const secretKey = randomId('sk_test_', 32);
  const webhookSecret = randomId('whsec_', 32);
  const sessions = new Map<string, StoredSession>();
  const requests: RecordedRequest[] = [];
  /** Idempotency-Key → the first request's path and body, and the answer it got. */
  const idempotent = new Map<string, { path: string; body: string; status: number; answer: unknown }>();
  let failure: { status: number; retryable: boolean } | null = null;
  let baseUrl = '';

  function send(res: ServerResponse, req: IncomingMessage, status: number, answer: unknown, extra: Record<string, string> = {}): void {
    const json = JSON.stringify(answer, null, 2);
    const key = header(req, 'idempotency-key');
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(json),
      'request-id': randomId('req_', 14),
      'stripe-version': header(req, 'stripe-version') ?? Stripe.API_VERSION,
      ...(key && req.method === 'POST' ? { 'idempotency-key': key } : {}),
      ...extra,
    });
    res.end(json);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', baseUrl);
    const method = req.method ?? 'GET';
    const body = await readBody(req);

    // The hosted payment page the session's url points at: a placeholder, so a test never follows a link off this host.
    const page = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && page) {
      const session = sessions.get(page[1]!);
      res.writeHead(session?.status === 'open' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(session?.status === 'open' ? `<!doctype html><title>Pay $${(session.amount_total / 100).toFixed(2)}</title>` : '<!doctype html><title>Link expired</title>');
      return;
    }

    const record: RecordedRequest = {
      method,
      path: url.pathname,
      idempotencyKey: header(req, 'idempotency-key'),
      stripeVersion: header(req, 'stripe-version'),
      userAgent: header(req, 'user-agent'),
      params: {},
      status: 0,
    };
    requests.push(record);
    const answer = (status: number, payload: unknown, extra?: Record<string, string>) => {
      record.status = status;
      send(res, req, status, payload, extra);
    };

    try {
      if (failure) {
        const { status, retryable } = failure;
        failure = null;
        answer(status, { error: errorForStatus(status) }, { 'stripe-should-retry': retryable ? 'true' : 'false' });
        return;
      }
      const key = apiKeyOf(req);
      if (key === null) {
        throw new ApiError(401, { type: 'invalid_request_error', message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY')." });
      }
      if (key !== secretKey) throw new ApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${redact(key)}` });

      const contentType = header(req, 'content-type') ?? '';
      if (method === 'POST' && body !== '' && !contentType.startsWith('application/x-www-form-urlencoded')) {
        throw invalid(`Invalid request: unsupported Content-Type ${contentType}. If error persists and you need assistance, please contact support.`);
      }
      const params = parseStripeForm(method === 'POST' ? body : url.search.slice(1));
      record.params = params;

      if (url.pathname === '/v1/checkout/sessions' && method === 'POST') {
        const idemKey = record.idempotencyKey;
        const previous = idemKey ? idempotent.get(idemKey) : undefined;
        if (previous) {
          if (previous.path !== url.pathname || previous.body !== body) {
            throw new ApiError(400, {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
            });
          }
          answer(previous.status, previous.answer, { 'idempotent-replayed': 'true' });
          return;
        }
        const session = createSession(params, baseUrl);
        sessions.set(session.id, session);
        const created = wire(session, expandOf(params));
        if (idemKey) idempotent.set(idemKey, { path: url.pathname, body, status: 200, answer: created });
        answer(200, created);
        return;
      }
      const one = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (one && method === 'GET') {
        const id = decodeURIComponent(one[1]!);
        const session = sessions.get(id);
        if (!session) throw new ApiError(404, { type: 'invalid_request_error', code: 'resource_missing', param: 'session', message: `No such checkout.session: '${id}'` });
        answer(200, wire(session, expandOf(params)));
        return;
      }
      throw new ApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` });
    } catch (err) {
      if (err instanceof ApiError) {
        answer(err.status, { error: { ...err.body, doc_url: err.body.code ? `https://stripe.com/docs/error-codes/${err.body.code.replace(/_/g, '-')}` : undefined } });
        return;
      }
      answer(500, { error: { type: 'api_error', message: `stand-in failure: ${(err as Error).message}` } });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  const get = (id: string): StoredSession => {
    const s = sessions.get(id);
    if (!s) throw new Error(`stripe stand-in: no session ${id}`);
    return s;
  };

  return {
    url: baseUrl,
    port,
    secretKey,
    webhookSecret,
    sessions,
    requests,
    markPaid(id) {
      const s = get(id);
      if (s.status !== 'open') throw new Error(`stripe stand-in: session ${id} is ${s.status}, not open`);
      Object.assign(s, { status: 'complete', payment_status: 'paid', payment_intent: randomId('pi_', 24), url: null });
    },
    expire(id) {
      const s = get(id);
      if (s.status !== 'open') throw new Error(`stripe stand-in: session ${id} is ${s.status}, not open`);
      Object.assign(s, { status: 'expired', url: null });
    },
    webhookFor(id, type = 'checkout.session.completed') {
      const event = {
        id: randomId('evt_', 24),
        object: 'event',
        api_version: Stripe.API_VERSION,
        created: nowSeconds(),
        data: { object: wire(get(id)) },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      };
      const payload = JSON.stringify(event, null, 2);
      return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }) };
    },
    failNext(status, opts = {}) {
      failure = { status, retryable: opts.retryable ?? false };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // The client keeps its sockets alive between calls; without this close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
