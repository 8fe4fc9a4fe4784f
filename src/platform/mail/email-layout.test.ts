import { parse, type DefaultTreeAdapterTypes, type ParserError } from 'parse5';
import { describe, expect, it } from 'vitest';
import { UnsafeUrlError } from '../web/html.js';
import { renderEmail, type EmailContent } from './email-layout.js';

type Element = DefaultTreeAdapterTypes.Element;
type Node = DefaultTreeAdapterTypes.ChildNode | DefaultTreeAdapterTypes.Document;

const CONTENT: EmailContent = {
  preheader: 'Acme Lending asks to see your verified Bitcoin address.',
  heading: 'Acme Lending asks for access',
  paragraphs: ['Acme Lending would like to see the Bitcoin address you proved you control.', 'Nothing is shared until you say yes.'],
  action: { label: 'Review the request', url: 'https://ownproof.example/portal/requests/ar_123?from=mail&x=1' },
  details: [
    { label: 'Requested by', value: 'Acme Lending' },
    { label: 'Expires', value: '2026-06-01 12:00 UTC' },
  ],
  footer: 'You get this e-mail because Acme Lending has your address. If you do not know them, ignore it.',
};

const VOID = new Set(['meta', 'br', 'img', 'link', 'hr', 'input']);

function elements(node: Node): Element[] {
  const children = 'childNodes' in node ? node.childNodes : [];
  return children.flatMap((child) => ('tagName' in child ? [child, ...elements(child)] : []));
}

function attr(element: Element, name: string): string | undefined {
  return element.attrs.find((a) => a.name === name)?.value;
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterTypes.TextNode).value;
  return 'childNodes' in node ? node.childNodes.map((child) => textOf(child)).join('') : '';
}

/**
 * The document as a browser builds it (parse5 implements the WHATWG parsing algorithm), with every
 * parse error, and a check that the tree is the one the source nests: each element written with
 * an end tag, inside the element whose tags enclose it in the source. A table layout that is not
 * well formed fails here, where browsers would silently move content out of the tables ("foster
 * parenting") or close elements early.
 */
function parseStrictly(source: string): { document: DefaultTreeAdapterTypes.Document; problems: string[] } {
  const problems: string[] = [];
  const document = parse(source, {
    sourceCodeLocationInfo: true,
    onParseError: (error: ParserError) => problems.push(`${error.code} at ${error.startLine}:${error.startCol}`),
  });
  const all = elements(document);
  for (const element of all) {
    const location = element.sourceCodeLocation;
    if (!location) {
      problems.push(`<${element.tagName}> was implied, not written`);
      continue;
    }
    if (!VOID.has(element.tagName) && !location.endTag) problems.push(`<${element.tagName}> at line ${location.startLine} has no end tag`);
    const enclosing = all
      .filter(
        (other) =>
          other !== element &&
          other.sourceCodeLocation &&
          other.sourceCodeLocation.startOffset < location.startOffset &&
          location.endOffset <= other.sourceCodeLocation.endOffset,
      )
      .sort((a, b) => (b.sourceCodeLocation?.startOffset ?? 0) - (a.sourceCodeLocation?.startOffset ?? 0))[0];
    const parent = element.parentNode as Element | DefaultTreeAdapterTypes.Document | null;
    if (enclosing !== undefined && parent !== enclosing)
      problems.push(`<${element.tagName}> at line ${location.startLine} ended up outside the <${enclosing.tagName}> around it`);
  }
  return { document, problems };
}

describe('the e-mail layout', () => {
  it('is a well-formed HTML document: no parse error, every element where the source puts it', () => {
    const { problems } = parseStrictly(renderEmail(CONTENT).html);
    expect(problems).toEqual([]);
  });

  it('proves its own check: a stray element between table rows, or a missing end tag, is reported', () => {
    const stray = renderEmail(CONTENT).html.replace('<tr>', '<p>oops</p><tr>');
    expect(parseStrictly(stray).problems).toContainEqual(expect.stringMatching(/^<p> at line \d+ ended up outside the <tbody> around it$/));
    const unclosed = renderEmail(CONTENT).html.replace('</h1>', '');
    expect(parseStrictly(unclosed).problems).toContainEqual(expect.stringMatching(/^<h1> at line \d+ has no end tag$/));
  });

  it('lays out with presentation tables and inline styles only, in a column at most 600 px wide', () => {
    const { document } = parseStrictly(renderEmail(CONTENT).html);
    const all = elements(document);
    const names = new Set(all.map((e) => e.tagName));
    for (const forbidden of ['style', 'script', 'link', 'img', 'form', 'iframe']) expect(names.has(forbidden), forbidden).toBe(false);
    expect(all.filter((e) => attr(e, 'class') !== undefined)).toEqual([]);
    const tables = all.filter((e) => e.tagName === 'table');
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) expect(attr(table, 'role')).toBe('presentation');
    expect(tables.filter((t) => /max-width:600px/.test(attr(t, 'style') ?? ''))).toHaveLength(2);
    const html = all.find((e) => e.tagName === 'html');
    expect(html && attr(html, 'lang')).toBe('en');
    expect(textOf(all.find((e) => e.tagName === 'title') as Element)).toBe(CONTENT.heading);
  });

  it('starts the body with the preheader, hidden', () => {
    const { document } = parseStrictly(renderEmail(CONTENT).html);
    const body = elements(document).find((e) => e.tagName === 'body') as Element;
    const first = body.childNodes.find((node) => 'tagName' in node) as Element;
    expect(first.tagName).toBe('div');
    expect(attr(first, 'style')).toMatch(/display:none;.*max-height:0;.*overflow:hidden;.*mso-hide:all/);
    expect(textOf(first).startsWith(CONTENT.preheader)).toBe(true);
    expect(
      textOf(first)
        .slice(CONTENT.preheader.length)
        .replace(/[\u200c\u00a0]/g, ''),
    ).toBe('');
  });

  it('makes the action a padded link inside a coloured cell, and writes its URL out below', () => {
    const { document } = parseStrictly(renderEmail(CONTENT).html);
    const links = elements(document).filter((e) => e.tagName === 'a');
    expect(links.map((a) => attr(a, 'href'))).toEqual([CONTENT.action?.url, CONTENT.action?.url]);
    const [button, written] = links as [Element, Element];
    expect(textOf(button)).toBe('Review the request');
    expect(attr(button, 'style')).toMatch(/display:inline-block;padding:12px 24px;/);
    const cell = button.parentNode as Element;
    expect(cell.tagName).toBe('td');
    expect(attr(cell, 'bgcolor')).toBe('#1d4ed8');
    expect(textOf(written)).toBe(CONTENT.action?.url);
  });

  it('writes a plain-text part with the same words and the action URL on a line of its own', () => {
    expect(renderEmail(CONTENT).text).toBe(`Acme Lending asks for access

Acme Lending would like to see the Bitcoin address you proved you control.

Nothing is shared until you say yes.

Review the request:
https://ownproof.example/portal/requests/ar_123?from=mail&x=1

Requested by: Acme Lending
Expires: 2026-06-01 12:00 UTC

-- 
You get this e-mail because Acme Lending has your address. If you do not know them, ignore it.
`);
  });

  it('keeps the line breaks of a paragraph in the HTML part as <br>, as the text part keeps them', () => {
    const message = 'Their message: “For your loan\napplication.\nCall me <maybe>\n\nThanks”';
    const { html, text } = renderEmail({ ...CONTENT, paragraphs: [message] });
    const { document, problems } = parseStrictly(html);
    expect(problems).toEqual([]);
    const paragraph = elements(document).find((e) => e.tagName === 'p' && textOf(e).startsWith('Their message')) as Element;
    // Each line is a text node of its own, with a <br> between lines (two for the blank line).
    const parts = paragraph.childNodes.map((node) => ('tagName' in node ? `<${node.tagName}>` : textOf(node)));
    expect(parts).toEqual(['Their message: “For your loan', '<br>', 'application.', '<br>', 'Call me <maybe>', '<br>', '<br>', 'Thanks”']);
    expect(text).toContain('Their message: “For your loan\napplication.\nCall me <maybe>\n\nThanks”');
  });

  it('leaves out the button and the details when there are none', () => {
    const { html, text } = renderEmail({ ...CONTENT, action: undefined, details: undefined });
    const { document, problems } = parseStrictly(html);
    expect(problems).toEqual([]);
    expect(elements(document).filter((e) => e.tagName === 'a')).toEqual([]);
    expect(text).not.toContain('https://');
    expect(text).not.toContain('Requested by');
  });

  it('escapes every piece of content: markup and quotes come out as text', () => {
    const evil = `<script>alert("x")</script> Tom & "Jerry" 'quoted' <b>bold</b>`;
    const url = `https://ownproof.example/a?q="x"&r='y'&s=<z>`;
    const { html, text } = renderEmail({
      preheader: evil,
      heading: evil,
      paragraphs: [evil],
      action: { label: evil, url },
      details: [{ label: evil, value: evil }],
      footer: evil,
    });
    expect(html).not.toMatch(/<script|<b>/i);
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Tom &amp; &quot;Jerry&quot; &#39;quoted&#39; &lt;b&gt;bold&lt;/b&gt;',
    );
    const { document, problems } = parseStrictly(html);
    expect(problems).toEqual([]);
    const all = elements(document);
    expect(textOf(all.find((e) => e.tagName === 'h1') as Element)).toBe(evil);
    expect(all.filter((e) => e.tagName === 'a').map((a) => attr(a, 'href'))).toEqual([url, url]);
    expect(text).toContain(evil);
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:x',
    '/portal/sign-in',
    'mailto:ada@example.com',
    'not a url',
  ])('refuses the action URL %j', (url) => {
    expect(() => renderEmail({ ...CONTENT, action: { label: 'Go', url } })).toThrow(UnsafeUrlError);
  });
});
