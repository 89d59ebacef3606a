// The wire shapes of market-surface frames (docs/market-data.md): one data schema per kind, shared by the publish
// body, the frames read, the market.frame event's catalog entry and GET /market-data/discovery.
import { z } from 'zod';
import { EVIDENCE_STANCES, FRAME_KINDS, FRAME_LIMITS, PROBABILITY_PATTERN, VALUE_PATTERN } from '../../../core/markets/frames.ts';
import { ChainId, EvmAddress, IsoTimestamp } from '../../../wire/schemas.ts';

const text = (max: number, what: string) => z.string().trim().min(1, `${what} must not be empty`).max(max, `${what} is at most ${max} characters`);
const Url = z.url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' }).max(FRAME_LIMITS.urlMax);
const Probability = z.string().regex(PROBABILITY_PATTERN, 'must be a decimal string in [0, 1] with at most 18 decimals (the price scale)');

export const FRAME_DATA = {
  forecast: z
    .strictObject({
      probabilities: z.array(Probability).min(2).max(3).describe("one per outcome, in the market's outcome order (the prices' order), summing to 1 within 0.0001"),
      rationale: text(FRAME_LIMITS.rationaleMax, 'rationale').optional().describe('why, in plain text'),
    })
    .describe('the publisher\'s probability for each outcome'),
  datapoint: z
    .strictObject({
      label: text(FRAME_LIMITS.labelMax, 'label').describe('what was measured, e.g. "BTC/USD spot"'),
      value: z.string().regex(VALUE_PATTERN, 'must be a decimal string (at most 30 integer digits and 18 decimals)'),
      unit: text(FRAME_LIMITS.unitMax, 'unit').optional().describe('e.g. USD, %, mm'),
      observedAt: IsoTimestamp.describe('when the value was observed'),
      source: z.strictObject({ url: Url, name: text(FRAME_LIMITS.sourceNameMax, 'source.name').optional() }).describe('where it was observed'),
    })
    .describe('one observed value with its source'),
  evidence: z
    .strictObject({
      url: Url,
      title: text(FRAME_LIMITS.titleMax, 'title'),
      summary: text(FRAME_LIMITS.summaryMax, 'summary').optional(),
      stance: z.enum(EVIDENCE_STANCES).describe('supports or contradicts the named outcome, or context (no outcome)'),
      outcome: z.number().int().min(0).max(2).optional().describe('0-based outcome the stance is about (the trade side numbering); required unless stance is context'),
    })
    .describe('a link to evidence, with what it bears on'),
} as const;

const frameBody = <K extends keyof typeof FRAME_DATA>(kind: K) =>
  z.strictObject({
    marketAddress: EvmAddress,
    chainId: ChainId.optional().describe('the market\'s chain; the served chain when omitted'),
    kind: z.literal(kind),
    data: FRAME_DATA[kind],
  });

export const PublishFrameBody = z.discriminatedUnion('kind', [frameBody('forecast'), frameBody('datapoint'), frameBody('evidence')]);

export const FrameSchema = z.object({
  id: z.string().describe('frm_ + digits'),
  chainId: ChainId,
  marketAddress: z.string(),
  kind: z.enum(FRAME_KINDS),
  data: z.record(z.string(), z.unknown()).describe('the kind\'s data, as published (GET /market-data/discovery kinds[].data)'),
  publisher: z.object({ agentId: z.uuid(), name: z.string(), walletAddress: z.string().nullable() }),
  publishedAt: IsoTimestamp,
  sequence: z.string().describe('outbox sequence of its market.frame event'),
});
