// A CallToolResult (untrusted JSON from the server) turned into parts the result view can show safely: text stays
// text, images only as base64 data: URLs of raster/SVG image types, links only as text to copy.

import type { ContentView } from "../bindings/ContentView";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type ResultPart =
  | { kind: "text"; text: string }
  | { kind: "image"; src: string; mimeType: string; bytes: number }
  | { kind: "audio"; mimeType: string; bytes: number }
  | { kind: "link"; uri: string; name: string; description: string | null; mimeType: string | null }
  | {
      kind: "resource";
      uri: string;
      mimeType: string | null;
      text: string | null;
      bytes: number | null;
      image: string | null;
      /** The same contents as the resource viewer shows a read one (its Open button shows them there). */
      content: ContentView;
    }
  | { kind: "other"; label: string; json: string };

export interface ResultView {
  isError: boolean;
  parts: ResultPart[];
  /** `structuredContent`, pretty-printed; null when absent. */
  structured: string | null;
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp|avif|svg\+xml)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

type Obj = { [key: string]: JsonValue };

function isObj(v: JsonValue | undefined): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const text = (v: JsonValue | undefined): string | null => (typeof v === "string" ? v : null);

export function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** A data: URL for an image, or null when the type or the data is not what an image may be. */
export function imageSrc(mimeType: string | null, data: string | null): string | null {
  if (mimeType === null || data === null) return null;
  const clean = data.replace(/\s/g, "");
  if (!IMAGE_TYPES.test(mimeType.toLowerCase()) || !BASE64.test(clean)) return null;
  return `data:${mimeType.toLowerCase()};base64,${clean}`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function part(item: JsonValue): ResultPart {
  const other = (label: string): ResultPart => ({ kind: "other", label, json: JSON.stringify(item, null, 2) });
  if (!isObj(item)) return other("content item");
  switch (item["type"]) {
    case "text": {
      const t = text(item["text"]);
      return t === null ? other("text without text") : { kind: "text", text: t };
    }
    case "image": {
      const data = text(item["data"]);
      const mimeType = text(item["mimeType"]);
      const src = imageSrc(mimeType, data);
      if (src === null || mimeType === null || data === null) return other(`image (${mimeType ?? "no type"})`);
      return { kind: "image", src, mimeType, bytes: base64Bytes(data) };
    }
    case "audio":
      return {
        kind: "audio",
        mimeType: text(item["mimeType"]) ?? "audio",
        bytes: base64Bytes(text(item["data"]) ?? ""),
      };
    case "resource_link": {
      const uri = text(item["uri"]);
      if (uri === null) return other("resource link without uri");
      return {
        kind: "link",
        uri,
        name: text(item["name"]) ?? text(item["title"]) ?? uri,
        description: text(item["description"]),
        mimeType: text(item["mimeType"]),
      };
    }
    case "resource": {
      const resource = item["resource"];
      if (!isObj(resource) || text(resource["uri"]) === null) return other("embedded resource");
      const uri = text(resource["uri"]) ?? "";
      const mimeType = text(resource["mimeType"]);
      const blob = text(resource["blob"]);
      const body = text(resource["text"]);
      const image = imageSrc(mimeType, blob);
      return {
        kind: "resource",
        uri,
        mimeType,
        text: body,
        bytes: blob === null ? null : base64Bytes(blob),
        image,
        content: embeddedContent(uri, mimeType, body, blob, image !== null),
      };
    }
    default:
      return other(typeof item["type"] === "string" ? item["type"] : "content item");
  }
}

/** An embedded resource as a viewer content item (a blob other than an image is named by its size only). */
function embeddedContent(
  uri: string,
  mimeType: string | null,
  body: string | null,
  blob: string | null,
  isImage: boolean,
): ContentView {
  const typed = mimeType === null ? {} : { mimeType };
  if (body !== null) {
    return { kind: "text", uri, ...typed, text: body, truncated: false, bytes: new TextEncoder().encode(body).length };
  }
  if (blob === null) return { kind: "empty", uri };
  if (isImage && mimeType !== null) {
    return {
      kind: "image",
      uri,
      mimeType: mimeType.toLowerCase(),
      data: blob.replace(/\s/g, ""),
      bytes: base64Bytes(blob),
    };
  }
  return { kind: "blob", uri, ...typed, bytes: base64Bytes(blob), index: 0 };
}

export function resultView(result: JsonValue): ResultView {
  if (!isObj(result)) {
    return {
      isError: false,
      parts: [{ kind: "other", label: "result", json: JSON.stringify(result, null, 2) }],
      structured: null,
    };
  }
  const content = Array.isArray(result["content"]) ? result["content"] : [];
  const structured = result["structuredContent"];
  return {
    isError: result["isError"] === true,
    parts: content.map(part),
    structured: structured === undefined ? null : JSON.stringify(structured, null, 2),
  };
}
