// A model's reply as Markdown, rendered to HTML the thread can show. The model's text is not the user's: no raw HTML
// (markdown-it escapes it), no image is fetched (an image is shown as its alt text and address, never as <img>), and
// no link navigates: a link becomes an element with its address in `data-href` and no `href`, which the thread hands
// to the `open_link` command (the user consents on the URL card; the Rust side opens the system browser).

import MarkdownIt from "markdown-it";

const md = new MarkdownIt({
  html: false,
  // Bare addresses in text become links too, so they go through consent like written ones.
  linkify: true,
  typographer: false,
  breaks: false,
});

/** Where the thread finds a link's address. */
export const LINK_ATTR = "data-href";

// Everything markdown-it would write as <a href>: written without href, so a click can never navigate the webview.
md.renderer.rules["link_open"] = (tokens, idx) => {
  const token = tokens[idx];
  const href = String(token?.attrGet("href") ?? "");
  return `<a class="md-link" role="link" tabindex="0" data-testid="md-link" ${LINK_ATTR}="${md.utils.escapeHtml(href)}" title="${md.utils.escapeHtml(href)}">`;
};

// An image would be a request to whatever host the model named: shown as text instead.
md.renderer.rules["image"] = (tokens, idx) => {
  const token = tokens[idx];
  const src = String(token?.attrGet("src") ?? "");
  const alt = token?.children ? md.renderer.renderInlineAsText(token.children, md.options, {}) : "";
  return `<span class="md-image" data-testid="md-image">[image: ${md.utils.escapeHtml(alt || "no description")} (${md.utils.escapeHtml(src)})]</span>`;
};

// markdown-it refuses javascript:, vbscript:, file: and most data: links (it leaves them as text); what it keeps still
// only reaches the Rust review, which refuses anything but https (or http to this computer).

/** The reply as HTML: safe to insert, with no link that navigates and no image that loads. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
