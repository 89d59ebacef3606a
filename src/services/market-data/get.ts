// One frame by its public id (the answer to a retried publish, and GET /market-data/frames/:id).
import { problem } from '../../core/error-codes.ts';
import { frameRowId } from '../../core/markets/frames.ts';
import { framesQuery, frameView, type FrameView, type MarketDataDeps } from './deps.ts';

export async function getFrame(deps: Pick<MarketDataDeps, 'db'>, id: string): Promise<FrameView> {
  const rowId = frameRowId(id);
  const row = rowId === null ? undefined : await framesQuery(deps.db).where('f.id', '=', rowId.toString()).executeTakeFirst();
  if (!row) throw problem('FRAME_NOT_FOUND', `no frame ${id}`);
  return frameView(row);
}
