/**
 * The page a mailed link opens: `/confirm-email#token=…`. The token travels in the URL fragment,
 * which browsers never send to a server, so it reaches no access log and no proxy; and nothing
 * happens until the person presses the button, so a mail scanner that pre-fetches links cannot
 * verify an email or claim an agent on the owner's behalf. The button POSTs the token to
 * /api/agent/v1/email-links/confirm, the JSON capability that applies the link.
 */
import { createHash } from 'node:crypto';

export const CONFIRM_PAGE_PATH = '/confirm-email';

/** The link mailed for `token`: the token rides in the fragment, never sent to a server, never in an access log. */
export const confirmLink =
  (publicBaseUrl: string) =>
  (token: string): string =>
    `${publicBaseUrl}${CONFIRM_PAGE_PATH}#token=${token}`;

const SCRIPT = `
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const button = document.getElementById('go');
const out = document.getElementById('out');
const TEXT = { 'email-verified': 'Email verified: the agent key is active.', 'email-bound': 'Email bound to the agent.', claimed: 'Agent claimed. It now trades as itself, labelled AI.' };
if (!token) { out.textContent = 'This link is incomplete: open the full link from the mail.'; button.disabled = true; }
button.addEventListener('click', async () => {
  button.disabled = true;
  const res = await fetch('/api/agent/v1/email-links/confirm', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  const body = await res.json().catch(() => ({}));
  out.textContent = res.ok ? (TEXT[body.outcome] || 'Done.') : (body.detail || 'This link cannot be used.');
});`;

const scriptHash = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');

export const CONFIRM_PAGE_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Confirm</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
<h1>Confirm</h1>
<p>Press the button to confirm what the mail asked for. Nothing happens until you do.</p>
<button id="go" type="button">Confirm</button>
<p id="out" role="status"></p>
<script>${SCRIPT}</script>
</body></html>`;

export const CONFIRM_PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; script-src 'sha256-${scriptHash}'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};
