import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from './html.js';

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
