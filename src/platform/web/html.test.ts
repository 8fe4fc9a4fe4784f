import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml, UnsafeUrlError, urlProblem } from './html.js';

describe('html templates', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    const name = `<script>alert("x")</script> & 'co'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</p>',
    );
  });

  it('keeps nested templates as markup, without escaping them twice', () => {
    const inner = html`<b>${'a&b'}</b>`;
    expect(html`<p>${inner}</p>`.value).toBe('<p><b>a&amp;b</b></p>');
  });

  it('joins arrays and renders nothing for null, undefined and booleans', () => {
    expect(html`<ul>${['<a>', html`<li>b</li>`]}</ul>${null}${undefined}${false}${true}${0}`.value).toBe('<ul>&lt;a&gt;<li>b</li></ul>0');
  });

  it('returns SafeHtml, whose text is the markup', () => {
    const out = html`<i>x</i>`;
    expect(out).toBeInstanceOf(SafeHtml);
    expect(String(out)).toBe('<i>x</i>');
    expect(escapeHtml('"&')).toBe('&quot;&amp;');
  });
});

describe('URL attributes', () => {
  it('render relative paths, http(s), mailto and app-scheme links as given (escaped)', () => {
    for (const url of [
      '/connect/cs_x/providers',
      '?q=a&b',
      '#field',
      'https://client.example/done?a=1&b=2',
      'mailto:ada@example.com',
      'myapp://done?x=1',
    ]) {
      expect(html`<a href="${url}">x</a>`.value).toBe(`<a href="${escapeHtml(url)}">x</a>`);
    }
    expect(html`<form action="${'/connect/x'}/finish"></form>`.value).toBe('<form action="/connect/x/finish"></form>');
  });

  it('refuse to render a URL that would run code or read local data, however it is written', () => {
    const unsafe = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      '\u0001javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'blob:https://x/y',
      'about:blank',
    ];
    for (const url of unsafe) {
      expect(() => html`<a href="${url}">x</a>`, JSON.stringify(url)).toThrow(UnsafeUrlError);
      expect(() => html`<img src="${url}">`, JSON.stringify(url)).toThrow(UnsafeUrlError);
      expect(() => html`<form method="post" action="${url}"></form>`, JSON.stringify(url)).toThrow(UnsafeUrlError);
      expect(() => html`<button formaction="${url}">x</button>`, JSON.stringify(url)).toThrow(UnsafeUrlError);
      expect(urlProblem(url), JSON.stringify(url)).toBeDefined();
    }
  });

  it('check the URL where it begins, also when empty values come before it', () => {
    expect(() => html`<a href="${''}${'javascript:alert(1)'}">x</a>`).toThrow(UnsafeUrlError);
    expect(() => html`<a href="${html``}${'javascript:alert(1)'}">x</a>`).toThrow(UnsafeUrlError);
    // Later parts of the attribute cannot change a scheme that a safe first part already fixed.
    expect(html`<a href="${'/p'}/${'javascript:x'}">x</a>`.value).toBe('<a href="/p/javascript:x">x</a>');
  });

  it('leave other attributes and text alone', () => {
    expect(html`<p title="${'javascript:x'}">${'javascript:x'}</p>`.value).toBe('<p title="javascript:x">javascript:x</p>');
    expect(html`<a data-href="${'javascript:x'}">x</a>`.value).toBe('<a data-href="javascript:x">x</a>');
  });
});
