// Hand-written mirrors of the Rust types; generated from Rust with ts-rs in a later issue (then this file goes).

/** `wharf_core::ServerStatus` */
export type ServerStatus = "starting" | "ready" | "restarting" | "failed" | "stopped";

/** `wharf_core::ServerSummary`: one row of the server list. */
export interface ServerSummary {
  name: string;
  /** "stdio", "http", or "invalid" when the definition could not be resolved. */
  type: string;
  status: ServerStatus;
  /** The protocol version spoken, e.g. "2025-11-25". */
  era?: string;
  /** "modern" (stateless, `server/discover`) or "legacy" (`initialize` handshake). */
  lifecycle?: "modern" | "legacy";
  /** The server's own `serverInfo`; its shape is the server's business, so read it defensively. */
  serverInfo?: unknown;
  instructions?: string;
  capabilities?: unknown;
  error?: string;
  /** The newest lines the server wrote to stderr. */
  stderr: string;
  /** The process id of a running stdio server. */
  pid?: number;
}

/** `wharf_core::HostEvent`, tagged by `event`. */
export type HostEvent =
  | { event: "server_status"; server: string; status: ServerStatus; error?: string }
  | {
      event: "progress";
      server: string;
      call?: unknown;
      progress: number;
      total?: number;
      message?: string;
    }
  | { event: "log"; server: string; level: string; logger?: string; data: unknown }
  | { event: "list_changed"; server: string; kind: string }
  | { event: "server_error"; server: string; code: string; message: string }
  | { event: "notice"; server?: string; code: string; message: string };

/** `wharf_app::shell::StartupReport` */
export interface StartupReport {
  configPath: string;
  errors: string[];
  warnings: string[];
  smoke: boolean;
}

/** `wharf_app::smoke::RenderedRow`: what the UI shows for one server, read back from the DOM. */
export interface RenderedRow {
  name: string;
  status: string;
  era: string | null;
}
