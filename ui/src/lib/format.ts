// Small formatting helpers for untrusted server data (the result is always shown as text).

import type { JsonValue } from "../bindings/serde_json/JsonValue";

/** "name version" from a server's `serverInfo`, whatever shape the server chose to send. */
export function serverInfoText(info: JsonValue | undefined): string | null {
  if (typeof info !== "object" || info === null || Array.isArray(info)) return null;
  const { name, version, title } = info;
  const label = typeof title === "string" ? title : typeof name === "string" ? name : null;
  if (label === null) return null;
  return typeof version === "string" ? `${label} ${version}` : label;
}

export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
