// A market's frames, newest first, by kind and publisher, in keyset pages (GET /discover/markets/:address/frames).
import { problem } from '../../core/error-codes.ts';
import { frameId, frameRowId, FRAME_LIMITS, type FrameKind } from '../../core/markets/frames.ts';
import { findMarket } from '../markets/reads/find-market.ts';
import { framesQuery, frameView, type FrameView, type MarketDataDeps } from './deps.ts';

export interface ListFramesInput {
  market: string;
  chainId?: number;
  kind?: FrameKind;
  /** Only frames of this agent. */
  publisher?: string;
  limit?: number;
  /** nextCursor of the previous page: the id of its last frame. */
  cursor?: string;
}

export interface FramePage {
  frames: FrameView[];
  nextCursor: string | null;
}

export async function listFrames(deps: Pick<MarketDataDeps, 'db'>, input: ListFramesInput): Promise<FramePage> {
  const market = await findMarket(deps.db, { address: input.market, chainId: input.chainId });
  const limit = input.limit ?? FRAME_LIMITS.pageDefault;
  let qb = framesQuery(deps.db).where('f.chain_id', '=', market.chain_id).where('f.market', '=', market.address);
  if (input.kind) qb = qb.where('f.kind', '=', input.kind);
  if (input.publisher) qb = qb.where('f.agent_id', '=', input.publisher);
  if (input.cursor !== undefined) {
    const before = frameRowId(input.cursor);
    if (before === null) throw problem('INVALID_QUERY', `cursor '${input.cursor}' is not a frame id from a previous page's nextCursor`);
    qb = qb.where('f.id', '<', before.toString());
  }
  const rows = await qb.limit(limit + 1).execute();
  const page = rows.slice(0, limit);
  return { frames: page.map(frameView), nextCursor: rows.length > limit ? frameId(page.at(-1)!.id) : null };
}
