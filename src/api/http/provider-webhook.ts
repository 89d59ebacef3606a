/**
 * POST /api/v1/economy/provider-webhook: where the card payment provider reports checkout sessions (docs/economy.md
 * "Card"). Not a capability: the caller is the provider, authenticated by its signature over the raw body, which is
 * why this route reads the body as text instead of JSON. A verified event answers 200 {received: true} whether or not
 * it changed anything (a duplicate, an event of another integration), so the provider stops retrying; a bad
 * signature answers 400 problem+json.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isProblemError, type ProblemError } from '../../core/errors.ts';
import type { Services } from '../../services/services.ts';
import { header } from './request.ts';

export const PROVIDER_WEBHOOK_PATH = '/api/v1/economy/provider-webhook';
/** Provider events are small; anything larger is not one. */
const BODY_LIMIT = 256 * 1024;

export function registerProviderWebhook(
  app: FastifyInstance,
  deps: { services: Services; sendProblem: (reply: FastifyReply, req: FastifyRequest, err: ProblemError) => FastifyReply },
): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post(PROVIDER_WEBHOOK_PATH, async (req, reply) => {
      try {
        const raw = typeof req.body === 'string' ? req.body : '';
        const outcome = await deps.services.economy.providerWebhook(raw, header(req, 'stripe-signature'));
        return reply.code(200).send({ received: true, outcome });
      } catch (err) {
        if (isProblemError(err)) return deps.sendProblem(reply, req, err);
        throw err;
      }
    });
  });
}
