// The market listing: filters, search and sort kept in the URL, counts per state, cursor paging on scroll
// (GET /api/v1/markets and GET /api/v1/markets/counts).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { getJson, isAbort, type Query } from '../api/client.ts';
import {
  COLLATERALS,
  DATE_RANGES,
  LISTING_SORTS,
  MARKET_CATEGORIES,
  MARKET_STATES,
  PRICING_MODELS,
  type ListingSort,
  type Market,
  type MarketCounts,
  type MarketDetail,
  type MarketListings,
} from '../api/types.ts';
import { MarketCard } from '../components/market-card.tsx';
import { categoryName } from '../components/labels.ts';
import { MARKET_KINDS, useLiveEvents } from '../components/live.ts';
import { Empty, ErrorView, Loading } from '../components/status.tsx';
import { useFetch } from '../components/use-fetch.ts';
import { useI18n } from '../i18n/i18n.ts';
import { navigate } from '../router.ts';

const PAGE_SIZE = 24;
const SEARCH_DELAY_MS = 300;

/** The filters as the URL carries them (?state=open&q=eth…). */
interface Filters {
  state?: string;
  category?: string;
  collateral?: string;
  pricing?: string;
  closing?: string;
  q?: string;
  probMin?: string;
  probMax?: string;
  sort: ListingSort;
}
const FILTER_NAMES = ['state', 'category', 'collateral', 'pricing', 'closing', 'q', 'probMin', 'probMax'] as const;

function filtersOf(search: string): Filters {
  const p = new URLSearchParams(search);
  const pick = (name: string, allowed?: readonly string[]) => {
    const v = p.get(name) ?? undefined;
    return v && (!allowed || allowed.includes(v)) ? v : undefined;
  };
  const percent = (name: string) => {
    const v = pick(name);
    return v !== undefined && /^\d{1,3}$/.test(v) && Number(v) <= 100 ? v : undefined;
  };
  const q = pick('q');
  return {
    state: pick('state', MARKET_STATES),
    category: pick('category', MARKET_CATEGORIES),
    collateral: pick('collateral', COLLATERALS),
    pricing: pick('pricing', PRICING_MODELS),
    closing: pick('closing', DATE_RANGES),
    q: q && q.trim().length >= 2 ? q.trim().slice(0, 200) : undefined,
    probMin: percent('probMin'),
    probMax: percent('probMax'),
    sort: (pick('sort', LISTING_SORTS) as ListingSort | undefined) ?? 'new',
  };
}

function hrefOf(f: Filters): string {
  const p = new URLSearchParams();
  for (const name of FILTER_NAMES) if (f[name]) p.set(name, f[name]);
  if (f.sort !== 'new') p.set('sort', f.sort);
  const text = p.toString();
  return text ? `/?${text}` : '/';
}

/** The filters both the listing and the counts take. */
const sharedQuery = (f: Filters): Query => ({
  category: f.category,
  collateral: f.collateral,
  pricingModel: f.pricing,
  dateRange: f.closing,
  search: f.q,
  probMin: f.probMin,
  probMax: f.probMax,
});

interface ListState {
  markets: Market[];
  cursor: string | null;
  loading: boolean;
  error: unknown;
}

export function MarketsPage({ search }: { search: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const filters = useMemo(() => filtersOf(search), [search]);
  const listKey = JSON.stringify(filters);
  const countsKey = JSON.stringify(sharedQuery(filters));
  // From the address bar at the time of the change, not this render's filters: two quick changes before a re-render
  // both land.
  const set = (change: Partial<Filters>) => navigate(hrefOf({ ...filtersOf(location.search), ...change }), { replace: true });

  useEffect(() => {
    document.title = `${t('markets.title')} · ${t('app.name')}`;
  }, [t]);

  const counts = useFetch((signal) => getJson<MarketCounts>('/api/v1/markets/counts', sharedQuery(filters), signal).then((a) => a.body), [countsKey]);

  const [list, setList] = useState<ListState>({ markets: [], cursor: null, loading: true, error: null });
  const [attempt, setAttempt] = useState(0);
  const inFlight = useRef<AbortController | null>(null);
  const load = (cursor: string | null) => {
    inFlight.current?.abort();
    const abort = new AbortController();
    inFlight.current = abort;
    setList((s) => ({ ...(cursor ? s : { markets: [], cursor: null }), loading: true, error: null }));
    const query = { ...sharedQuery(filters), marketState: filters.state, sort: filters.sort, limit: PAGE_SIZE, cursor: cursor ?? undefined };
    getJson<MarketListings>('/api/v1/markets', query, abort.signal).then(
      ({ body, headers }) =>
        setList((s) => ({ markets: cursor ? [...s.markets, ...body.markets] : body.markets, cursor: headers.get('x-next-cursor'), loading: false, error: null })),
      (error: unknown) => {
        if (!isAbort(error)) setList((s) => ({ ...s, loading: false, error }));
      },
    );
  };
  useEffect(() => {
    load(null);
    return () => inFlight.current?.abort();
    // A new filter set starts again from the first page.
  }, [listKey, attempt]);

  // Live: a card whose market traded or changed state is read again in place; any other step changes the counts.
  useLiveEvents(MARKET_KINDS, {}, (events) => {
    const shown = new Set(list.markets.map((m) => m.address.toLowerCase()));
    const changed = new Set(events.flatMap((e) => (e.marketAddress && shown.has(e.marketAddress) ? [e.marketAddress] : [])));
    for (const address of changed) {
      getJson<MarketDetail>(`/api/agent/v1/discover/markets/${address}`).then(
        ({ body }) => setList((s) => ({ ...s, markets: s.markets.map((m) => (m.address.toLowerCase() === address ? body.market : m)) })),
        () => {}, // the card keeps what it showed; the next event tries again
      );
    }
    if (events.some((e) => e.type !== 'market.trade')) counts.retry();
  });

  // The next page comes when the end of the list scrolls into view (the button does the same without scrolling).
  const sentinel = useRef<HTMLDivElement>(null);
  const more = () => {
    if (list.cursor && !list.loading) load(list.cursor);
  };
  const moreRef = useRef(more);
  moreRef.current = more;
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && moreRef.current(), { rootMargin: '400px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const anyFilter = FILTER_NAMES.some((name) => filters[name] !== undefined);
  // Open when the page opens already filtered (a shared link); then the reader's to open and close.
  const [filtersOpen, setFiltersOpen] = useState(() => FILTER_NAMES.some((name) => name !== 'q' && name !== 'state' && filters[name] !== undefined));
  return (
    <div class="page markets-page">
      <h1>{t('markets.title')}</h1>
      <SearchBox value={filters.q ?? ''} onSearch={(q) => set({ q: q.trim().length >= 2 ? q.trim() : undefined })} />
      <nav class="state-tabs" aria-label={t('markets.byState')}>
        <StateTab label={t('state.all')} count={counts.data?.total} active={!filters.state} onClick={() => set({ state: undefined })} />
        {MARKET_STATES.map((s) => (
          <StateTab key={s} label={t(`state.${s}`)} count={counts.data?.counts[s]} active={filters.state === s} onClick={() => set({ state: s })} />
        ))}
      </nav>
      <details class="filters" open={filtersOpen} onToggle={(e) => setFiltersOpen(e.currentTarget.open)}>
        <summary>{t('markets.filters')}</summary>
        <div class="filter-grid">
          <Select id="f-category" label={t('markets.category')} value={filters.category} onChange={(v) => set({ category: v })} options={[['', t('category.any')], ...MARKET_CATEGORIES.map((c) => [c, categoryName(t, c)] as [string, string])]} />
          <Select id="f-collateral" label={t('markets.collateral')} value={filters.collateral} onChange={(v) => set({ collateral: v })} options={[['', t('markets.collateral.any')], ...COLLATERALS.map((c) => [c, c] as [string, string])]} />
          <Select id="f-pricing" label={t('markets.pricing')} value={filters.pricing} onChange={(v) => set({ pricing: v })} options={[['', t('markets.pricing.any')], ...PRICING_MODELS.map((m) => [m, t(`markets.pricing.${m}`)] as [string, string])]} />
          <Select id="f-closing" label={t('markets.closing')} value={filters.closing} onChange={(v) => set({ closing: v })} options={[['', t('markets.closing.any')], ...DATE_RANGES.map((d) => [d, t(`markets.closing.${d}`)] as [string, string])]} />
          <Percent id="f-prob-min" label={t('markets.probMin')} value={filters.probMin} onChange={(v) => set({ probMin: v })} />
          <Percent id="f-prob-max" label={t('markets.probMax')} value={filters.probMax} onChange={(v) => set({ probMax: v })} />
        </div>
        {anyFilter && (
          <button type="button" class="button button-quiet" onClick={() => navigate(filters.sort === 'new' ? '/' : `/?sort=${filters.sort}`, { replace: true })}>
            {t('markets.clear')}
          </button>
        )}
      </details>
      <div class="list-head">
        <Select id="f-sort" label={t('markets.sort')} value={filters.sort} onChange={(v) => set({ sort: (v as ListingSort | undefined) ?? 'new' })} options={LISTING_SORTS.map((s) => [s, t(`markets.sort.${s}`)] as [string, string])} />
        {list.markets.length > 0 && <p class="muted">{t('markets.shown', { n: i18n.number(list.markets.length) })}</p>}
      </div>
      <section aria-label={t('markets.title')} aria-busy={list.loading}>
        {list.markets.length > 0 && (
          <div class="card-grid" data-testid="market-list">
            {list.markets.map((m) => (
              <MarketCard key={m.address} market={m} />
            ))}
          </div>
        )}
        {list.loading && <Loading label={list.markets.length > 0 ? t('markets.loadingMore') : t('markets.loading')} />}
        {!!list.error && <ErrorView error={list.error} onRetry={() => (list.markets.length > 0 ? load(list.cursor) : setAttempt((n) => n + 1))} />}
        {!list.loading && !list.error && list.markets.length === 0 && (
          <Empty>
            <p>{t('markets.empty')}</p>
            {anyFilter && (
              <button type="button" class="button" onClick={() => navigate('/', { replace: true })}>
                {t('markets.clear')}
              </button>
            )}
          </Empty>
        )}
        {!list.loading && !list.error && list.cursor && (
          <button type="button" class="button button-wide" onClick={more} data-testid="load-more">
            {t('markets.more')}
          </button>
        )}
        {!list.loading && !list.error && !list.cursor && list.markets.length > 0 && <p class="muted end">{t('markets.end')}</p>}
        <div ref={sentinel} class="sentinel" aria-hidden="true" />
      </section>
    </div>
  );
}

function SearchBox({ value, onSearch }: { value: string; onSearch: (q: string) => void }) {
  const { t } = useI18n();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => onSearch(text), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <form class="search" role="search" onSubmit={(e) => (e.preventDefault(), onSearch(text))}>
      <label for="market-search" class="visually-hidden">
        {t('markets.search')}
      </label>
      <input
        id="market-search"
        type="search"
        placeholder={t('markets.search')}
        aria-describedby="market-search-hint"
        value={text}
        maxLength={200}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <span id="market-search-hint" class="visually-hidden">
        {t('markets.searchHint')}
      </span>
    </form>
  );
}

function StateTab({ label, count, active, onClick }: { label: string; count: number | undefined; active: boolean; onClick: () => void }) {
  const i18n = useI18n();
  return (
    <button type="button" class="tab" aria-pressed={active} onClick={onClick}>
      {label}
      {count !== undefined && <span class="tab-count">{i18n.number(count)}</span>}
    </button>
  );
}

function Select({ id, label, value, options, onChange }: { id: string; label: string; value: string | undefined; options: [string, string][]; onChange: (v: string | undefined) => void }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(e) => onChange(e.currentTarget.value || undefined)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A percent field. It keeps what the reader is typing as its own draft, so a re-render (a fetch that finishes
 *  meanwhile) never wipes it; the filter changes when the field is committed (change: Enter, Tab, the arrows). */
function Percent({ id, label, value, onChange }: { id: string; label: string; value: string | undefined; onChange: (v: string | undefined) => void }) {
  const [draft, setDraft] = useState(value ?? '');
  useEffect(() => setDraft(value ?? ''), [value]);
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={0}
        max={100}
        step={1}
        value={draft}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onChange={(e) => {
          const v = e.currentTarget.value;
          onChange(/^\d{1,3}$/.test(v) && Number(v) <= 100 ? v : undefined);
        }}
      />
    </div>
  );
}
