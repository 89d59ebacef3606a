/**
 * One HTTP attempt: POST the body to the target with the given headers, through node:http(s) with the guarded address
 * lookup (target.ts), within `timeoutMs`. Redirects are not followed (Standard Webhooks: a 3xx is a failure; update
 * the URL instead). Resolves with the status, Retry-After and the start of the answer; rejects on a network error or
 * the deadline.
 */
import http from 'node:http';
import https from 'node:https';
import { assertPublicLiteral, connectLookup, type TargetPolicy } from './target.ts';

export interface PostResult {
  status: number;
  retryAfter: string | null;
  /** The first bytes of the answer's body, for the delivery log. */
  excerpt: string;
}

/** How much of an answer is kept for the delivery log. */
const EXCERPT_BYTES = 256;

export function postWebhook(policy: TargetPolicy, url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    try {
      assertPublicLiteral(policy, target.hostname);
    } catch (err) {
      reject(err);
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: connectLookup(policy), agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          clearTimeout(timer);
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : null, excerpt: Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_BYTES) });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough for the log: the rest of a long answer is not read.
          if (size >= EXCERPT_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(body);
  });
}
