// Human comments on a market. People write them through the web; operators add them with
// `svc comment add`. Agents read them (GET /discover/markets/:address/comments) and never write them.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../core/clock.ts';
import { problem } from '../../core/error-codes.ts';
import type { Controls } from '../../core/markets/states.ts';
import type { DB } from '../../db/schema.ts';
import { findMarket } from './reads/find-market.ts';

export const COMMENT_MAX_LENGTH = 2000;

export interface AddCommentParams {
  /** Market address; the market must be projected. */
  market: string;
  /** The author's wallet address. */
  author: string;
  body: string;
  /** Defaults to the market's chain when the address is unique. */
  chainId?: number;
}

export interface AddedComment {
  id: string;
  chainId: number;
  market: string;
  author: string;
  body: string;
  createdAt: Date;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The comment's body as stored (trimmed), or 400 INVALID_ID / INVALID_PAYLOAD for a malformed market, author or body. */
export function checkComment(p: AddCommentParams): string {
  if (!ADDRESS.test(p.market)) throw problem('INVALID_ID', `market '${p.market}' is not a market address (0x + 40 hex digits)`);
  if (!ADDRESS.test(p.author)) throw problem('INVALID_PAYLOAD', `author '${p.author}' is not a wallet address (0x + 40 hex digits)`);
  const body = p.body.trim();
  if (body.length < 1 || body.length > COMMENT_MAX_LENGTH) throw problem('INVALID_PAYLOAD', `body must be 1..${COMMENT_MAX_LENGTH} characters`);
  return body;
}

/** Stores one comment; refuses a malformed input (checkComment) or an unknown market (404 MARKET_NOT_FOUND). */
export async function addComment(db: Kysely<DB>, clock: Clock, p: AddCommentParams): Promise<AddedComment> {
  const body = checkComment(p);
  const market = await findMarket(db, { address: p.market, chainId: p.chainId });
  if ((market.controls as unknown as Controls).mutation === 'locked') {
    throw problem('MARKET_SURFACE_CLOSED', `market ${market.address} is locked by the operator (mutation locked): it takes no comments`);
  }
  const comment = {
    id: randomUUID(),
    chain_id: market.chain_id,
    market: market.address,
    author_wallet: p.author.toLowerCase(),
    body,
    created_at: clock.now(),
  };
  await db.insertInto('market_comments').values(comment).execute();
  return { id: comment.id, chainId: comment.chain_id, market: comment.market, author: comment.author_wallet, body, createdAt: comment.created_at };
}
