import { createHash } from 'node:crypto';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f4f5f7;color:#1d2330;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:26rem;margin:1rem;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12),0 8px 24px rgba(0,0,0,.06)}
h1{margin:0 0 1rem;font-size:1.35rem}
p{margin:0 0 1rem}
label{display:block;margin:0 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;margin:0 0 1rem;padding:.6rem .75rem;border:1px solid #8a93a6;border-radius:8px;font:inherit}
input:focus-visible,button:focus-visible{outline:3px solid #2f6fed;outline-offset:2px}
ul{margin:0 0 1.5rem;padding-left:1.25rem}
form{margin:0 0 1rem}
li{margin:.25rem 0}
.actions{display:flex;gap:.75rem}
button{flex:1;padding:.65rem 1rem;border:1px solid #2f6fed;border-radius:8px;background:#2f6fed;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#fff;color:#2f6fed}
.alert{padding:.75rem 1rem;border-radius:8px;background:#fdecec;color:#8a1c1c}
.muted{color:#566074;font-size:.9rem}
`;

const STYLE_HASH = createHash('sha256').update(STYLE, 'utf8').digest('base64');

/** Text for HTML element content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface RenderedPage {
  status: number;
  html: string;
  headers: Record<string, string>;
}

/**
 * A whole page with the headers every authorization page carries: no script at all, styles
 * only by hash, forms only to this service (and, on consent, to the client's redirect URI,
 * which the browser follows after the form), never framed, never cached.
 */
export function renderPage(status: number, title: string, body: string, formTargets: string[] = []): RenderedPage {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    },
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`,
  };
}

/** Hidden inputs that carry values through a form. */
export function hiddenInputs(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
}
