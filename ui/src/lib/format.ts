// Small formatting helpers for untrusted server data (the result is always shown as text).

import type { ServerInfo } from "../bindings/ServerInfo";

/** "title version" (the name when it has no title) from a server's `serverInfo`. */
export function serverInfoText(info: ServerInfo | undefined): string | null {
  if (info === undefined) return null;
  const label = info.title ?? info.name;
  if (label === "") return null;
  return info.version === "" ? label : `${label} ${info.version}`;
}

export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
