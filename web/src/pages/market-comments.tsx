// What people wrote on a market, newest first, each with the author's reputation tier (never a score) and position
// (GET /api/agent/v1/discover/markets/{address}/comments, paged by nextCursor). Read-only here.
import { useState } from 'preact/hooks';
import { getJson } from '../api/client.ts';
import type { Comment, Comments } from '../api/read-types.ts';
import type { Market } from '../api/types.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';

const PAGE = 20;

export function MarketComments({ market }: { market: Market }) {
  const { t } = useI18n();
  const [cursor, setCursor] = useState<string | null>(null);
  const [earlier, setEarlier] = useState<Comment[]>([]);
  const page = useFetch(
    (signal) => getJson<Comments>(`/api/agent/v1/discover/markets/${market.address}/comments`, { limit: PAGE, cursor }, signal).then((a) => a.body),
    [market.address, cursor],
  );
  // While the next page loads, useFetch still holds the previous one, which `earlier` already has.
  const shown = page.loading ? earlier : [...earlier, ...(page.data?.comments ?? [])];
  const next = page.data?.nextCursor ?? null;
  return (
    <section class="panel" aria-labelledby="comments-title" data-testid="comments">
      <h2 id="comments-title">{t('market.comments')}</h2>
      {page.loading && <Loading label={t('market.loading')} />}
      {!!page.error && <ErrorView error={page.error} onRetry={page.retry} />}
      {!page.loading && !page.error && shown.length === 0 && <Empty>{t('market.comments.empty')}</Empty>}
      {shown.length > 0 && (
        <ol class="comments">
          {shown.map((c) => (
            <CommentItem key={c.id} comment={c} market={market} />
          ))}
        </ol>
      )}
      {next && !page.loading && (
        <button
          type="button"
          class="button button-wide"
          onClick={() => {
            setEarlier(shown);
            setCursor(next);
          }}
        >
          {t('market.comments.more')}
        </button>
      )}
    </section>
  );
}

function CommentItem({ comment, market }: { comment: Comment; market: Market }) {
  const i18n = useI18n();
  const { t } = i18n;
  const holding = comment.position
    .map((shares, i) => ({ shares, label: market.outcomes[i]?.label ?? String(i + 1) }))
    .filter((p) => /[1-9]/.test(p.shares))
    .map((p) => t('market.comments.holds', { shares: i18n.amount(p.shares, market.collateral.decimals), label: p.label }));
  return (
    <li class="comment" data-testid="comment">
      <div class="comment-head">
        <a class="mono" href={`/profiles/${comment.author.toLowerCase()}`} title={comment.author}>
          {shortAddress(comment.author)}
        </a>
        <span class={`badge badge-tier tier-${comment.reputation.tier}`} title={t('profile.tier')}>
          {t(`tier.${comment.reputation.tier}`)}
        </span>
        {holding.length > 0 && <span class="muted">{holding.join(', ')}</span>}
        <time class="muted" dateTime={comment.createdAt} title={i18n.dateTime(comment.createdAt)}>
          {i18n.relative(comment.createdAt)}
        </time>
      </div>
      <p class="comment-body" dir="auto">
        {comment.body}
      </p>
    </li>
  );
}
