// The header's wallet control: "Connect wallet" (connect and Sign-In with Ethereum in one step), then the signed-in
// address and "Sign out". The wallet code is fetched on the first click, not with the page.
import { useState } from 'preact/hooks';
import { shortAddress } from '../components/util.ts';
import { useI18n } from '../i18n/i18n.ts';
import { signOut, useSession } from './session.ts';

/** Connects and signs in (loads the wallet chunk); throws what the steps throw. */
export const connectAndSignIn = (): Promise<string> => import('./wallet.ts').then((m) => m.signIn());

export function SignInButton({ onError }: { onError: (err: unknown) => void }) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const click = () => {
    setBusy(true);
    onError(null);
    connectAndSignIn().then(
      () => setBusy(false),
      (err: unknown) => {
        setBusy(false);
        onError(err);
      },
    );
  };
  return (
    <button type="button" class="button button-primary" onClick={click} disabled={busy} data-testid="wallet-connect">
      {busy ? t('wallet.signingIn') : t('wallet.connect')}
    </button>
  );
}

export function WalletButton() {
  const i18n = useI18n();
  const { t } = i18n;
  const session = useSession();
  const [error, setError] = useState<unknown>(null);
  if (session.status === 'loading') return <div class="wallet" aria-busy="true" />;
  if (session.status === 'signedIn') {
    return (
      <div class="wallet">
        <span class="mono wallet-address" title={session.address} data-testid="wallet-address">
          {shortAddress(session.address)}
        </span>
        <button type="button" class="button" onClick={() => void signOut()} data-testid="wallet-signout">
          {t('wallet.signOut')}
        </button>
      </div>
    );
  }
  return (
    <div class="wallet">
      <SignInButton onError={setError} />
      {!!error && (
        <p class="wallet-error" role="alert">
          {i18n.error(error)}
        </p>
      )}
    </div>
  );
}
