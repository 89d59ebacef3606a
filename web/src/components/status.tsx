// Loading, empty and error states, the same on every page.
import type { ComponentChildren } from 'preact';
import { useI18n } from '../i18n/i18n.ts';

export function Loading({ label }: { label: string }) {
  return (
    <p class="status status-loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="status status-empty">{children}</div>;
}

export function ErrorView({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t, error: words } = useI18n();
  return (
    <div class="status status-error" role="alert">
      <p>{words(error)}</p>
      {onRetry && (
        <button type="button" class="button" onClick={onRetry}>
          {t('action.retry')}
        </button>
      )}
    </div>
  );
}
