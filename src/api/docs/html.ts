// The plain HTML shell of the public discovery pages: every value escaped, no script, no external asset.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Tagged template: interpolated strings are escaped; a Html value (already built markup) is kept. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = string | number | Html | readonly Html[];

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0]!;
  parts.forEach((p, i) => {
    const text = p instanceof Html ? p.value : Array.isArray(p) ? p.map((h: Html) => h.value).join('') : escapeHtml(String(p));
    out += text + strings[i + 1]!;
  });
  return new Html(out);
}

export const link = (href: string, text: string = href): Html => html`<a href="${href}">${text}</a>`;

const STYLE = `body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}`;

export interface PageOptions {
  title: string;
  description: string;
  /** Alternate representations of the same content (<link rel="alternate">). */
  alternates?: { type: string; href: string }[];
  body: Html;
}

export function page(o: PageOptions): string {
  const alternates = (o.alternates ?? []).map((a) => html`<link rel="alternate" type="${a.type}" href="${a.href}">\n`);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.title}</title>
<meta name="description" content="${o.description}">
${alternates}<style>${new Html(STYLE)}</style></head>
<body>
${o.body}
</body></html>
`.value;
}

/** Headers of a static public page: no script may run, nothing is loaded from elsewhere. */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Cache-Control': 'public, max-age=300',
  'X-Content-Type-Options': 'nosniff',
};
