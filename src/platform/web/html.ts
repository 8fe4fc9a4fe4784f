/**
 * Auto-escaping HTML templates. Every value interpolated into `html\`…\`` is escaped unless it is
 * itself the result of `html` (already safe markup), so a page can only contain markup its author
 * wrote. Attribute values must be quoted in templates; quotes are escaped, so a value cannot leave
 * its attribute.
 *
 * URL attributes are safe by construction too: a value that begins an `href`, `src`, `action` or
 * `formaction` attribute is checked with `urlProblem`, and a URL that would run code or read
 * local data when followed (`javascript:`, `data:`, …) throws instead of rendering. So a link is
 * safe because the template checks it, not because some earlier validation happened to.
 */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Schemes that run code or read local data when a browser follows them. */
export const UNSAFE_URL_SCHEMES: ReadonlySet<string> = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'view-source:',
]);

/**
 * Why a URL must not be put in a link, or undefined when it may: relative references, http(s),
 * mailto and app schemes (`myapp://done`) are fine. The scheme is read as a browser reads it
 * (WHATWG URL parsing drops tabs and newlines and trims control characters, so `java\tscript:`
 * is `javascript:`).
 */
export function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value, 'https://relative.invalid/');
  } catch {
    return 'is not a valid URL';
  }
  if (UNSAFE_URL_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  return undefined;
}

/** Raised while rendering when a URL attribute would get an unsafe URL: a bug, never user-visible markup. */
export class UnsafeUrlError extends Error {
  constructor(problem: string) {
    super(`refused to render a URL attribute: the URL ${problem}`);
    this.name = 'UnsafeUrlError';
  }
}

/** Nothing (null, undefined, false) renders as nothing, so `${cond && html\`…\`}` reads naturally. */
type Renderable = SafeHtml | string | number | boolean | null | undefined | readonly Renderable[];

function render(value: Renderable): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template part that opens a quoted URL attribute: the next value is where the URL begins. */
const OPENS_URL_ATTRIBUTE = /\s(?:href|src|action|formaction)\s*=\s*"$/i;

export function html(strings: TemplateStringsArray, ...values: Renderable[]): SafeHtml {
  let out = strings[0] ?? '';
  // Whether the next value starts a URL attribute's value (also after values that rendered empty).
  let atUrlStart = OPENS_URL_ATTRIBUTE.test(out);
  values.forEach((value, i) => {
    const rendered = render(value);
    if (atUrlStart) {
      const problem = urlProblem(unescapeForCheck(rendered));
      if (problem) throw new UnsafeUrlError(problem);
    }
    const next = strings[i + 1] ?? '';
    out += rendered + next;
    atUrlStart = OPENS_URL_ATTRIBUTE.test(next) || (atUrlStart && rendered === '' && next === '');
  });
  return new SafeHtml(out);
}

/** The URL a browser will see once it decodes the attribute's character references. */
function unescapeForCheck(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name] ?? '');
}
