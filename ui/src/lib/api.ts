// The one module that talks to the Rust side: every Tauri command and event the window uses, typed. Components and
// stores call these functions, never `invoke` or `listen` directly, so tests mock this module and nothing else.

import { invoke } from "@tauri-apps/api/core";
import { listen, type UnlistenFn } from "@tauri-apps/api/event";
import type { Attachment } from "../bindings/Attachment";
import type { ChatModels } from "../bindings/ChatModels";
import type { ChatStatus } from "../bindings/ChatStatus";
import type { CommandError } from "../bindings/CommandError";
import type { ConversationSummary } from "../bindings/ConversationSummary";
import type { Completion } from "../bindings/Completion";
import type { CompletionTarget } from "../bindings/CompletionTarget";
import type { ErrorCode } from "../bindings/ErrorCode";
import type { HostEvent } from "../bindings/HostEvent";
import type { ImportSource } from "../bindings/ImportSource";
import type { LocalRuntime } from "../bindings/LocalRuntime";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { InputAnswer } from "../bindings/InputAnswer";
import type { InputResolved } from "../bindings/InputResolved";
import type { MissingInput } from "../bindings/MissingInput";
import type { PathArgumentPolicy } from "../bindings/PathArgumentPolicy";
import type { PathParam } from "../bindings/PathParam";
import type { PendingInput } from "../bindings/PendingInput";
import type { PromptCatalog } from "../bindings/PromptCatalog";
import type { PromptView } from "../bindings/PromptView";
import type { RenderedRow } from "../bindings/RenderedRow";
import type { ResourceCatalog } from "../bindings/ResourceCatalog";
import type { ResourceView } from "../bindings/ResourceView";
import type { SamplingLimits } from "../bindings/SamplingLimits";
import type { SamplingPolicy } from "../bindings/SamplingPolicy";
import type { SamplingPreferenceRow } from "../bindings/SamplingPreferenceRow";
import type { SamplingSettings } from "../bindings/SamplingSettings";
import type { SavedBlob } from "../bindings/SavedBlob";
import type { SearchHit } from "../bindings/SearchHit";
import type { ServerEntry } from "../bindings/ServerEntry";
import type { ServerRoots } from "../bindings/ServerRoots";
import type { ServerSignIn } from "../bindings/ServerSignIn";
import type { ServerSummary } from "../bindings/ServerSummary";
import type { StartupReport } from "../bindings/StartupReport";
import type { TemplateVariable } from "../bindings/TemplateVariable";
import type { ThreadMessage } from "../bindings/ThreadMessage";
import type { ToolGrant } from "../bindings/ToolGrant";
import type { Summarized } from "../bindings/Summarized";
import type { TurnOutcome } from "../bindings/TurnOutcome";
import type { ListedTool } from "../bindings/ListedTool";
import type { ToolResultView } from "../bindings/ToolResultView";
import type { UiState } from "../bindings/UiState";
import type { WorkspaceFolders } from "../bindings/WorkspaceFolders";
import type { ViewReply } from "../bindings/ViewReply";
import type { ViewPost } from "../bindings/ViewPost";
import type { Theme } from "../bindings/Theme";
import type { ToolOfServer } from "../bindings/ToolOfServer";
import type { ViewStage } from "../bindings/ViewStage";
import type { ViewSlot } from "../bindings/ViewSlot";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { TauriCommand } from "../bindings/TauriCommand";
import type { Commands } from "../bindings/Commands";
import type { AppCommands } from "../bindings/AppCommands";
import type { ProviderInput } from "./sampling";
import type { JsonObject } from "./argsDraft";

/** Every command rejects with a `CommandError`; anything else (a bridge failure) is turned into one. */
export function toCommandError(e: unknown): CommandError {
  if (typeof e === "object" && e !== null) {
    const { code, message, fields } = e as Record<string, unknown>;
    if (typeof code === "string" && typeof message === "string") {
      const list = Array.isArray(fields)
        ? fields.filter(
            (f): f is { field: string; message: string } =>
              typeof f === "object" &&
              f !== null &&
              typeof (f as Record<string, unknown>)["field"] === "string" &&
              typeof (f as Record<string, unknown>)["message"] === "string",
          )
        : [];
      // The code comes from Rust's closed list (ErrorCode); the bridge's own failures are "internal" below.
      return { code: code as ErrorCode, message, fields: list.map((f) => ({ field: f.field, message: f.message })) };
    }
  }
  return { code: "internal", message: e instanceof Error ? e.message : String(e), fields: [] };
}

/** Every command the window may invoke, with its arguments and result: wharf-core's table and the window's own. */
type AllCommands = Commands & AppCommands;

/** Invokes `command` with its typed arguments (a wrong name or field fails the type check). */
async function call<K extends keyof AllCommands & TauriCommand>(
  command: K,
  args: AllCommands[K]["args"],
): Promise<AllCommands[K]["result"]> {
  try {
    return await invoke<AllCommands[K]["result"]>(command, { args });
  } catch (e) {
    throw toCommandError(e);
  }
}

export const listServers = (): Promise<ServerSummary[]> => call("list_servers", {});
export const startupReport = (): Promise<StartupReport> => call("startup_report", {});
export const restartServer = (name: string): Promise<null> => call("restart_server", { name });
export const stopServer = (name: string): Promise<null> => call("stop_server", { name });
export const listTools = (server: string): Promise<ListedTool[]> => call("list_tools", { server });
export const callTool = (
  callId: string,
  server: string,
  tool: string,
  args: JsonObject | null,
): Promise<ToolResultView> => call("call_tool", { callId, server, tool, args });
export const cancelCall = (callId: string): Promise<null> => call("cancel_call", { callId });
export const listServerEntries = (): Promise<ServerEntry[]> => call("list_server_entries", {});
export const saveServer = (previousName: string | null, entry: ServerEntry): Promise<ServerEntry[]> =>
  call("save_server", { previousName, entry });
export const removeServer = (name: string): Promise<ServerEntry[]> => call("remove_server", { name });
export const importSources = (): Promise<ImportSource[]> => call("import_sources", {});
export const importServers = (sourceId: string, names: string[]): Promise<ServerEntry[]> =>
  call("import_servers", { sourceId, names });
export const getUiState = (): Promise<UiState> => call("get_ui_state", {});
export const setSelectedServer = (name: string | null): Promise<null> => call("set_selected_server", { name });
export const pendingInputs = (): Promise<PendingInput[]> => call("pending_inputs", {});
export const answerInput = (id: number, answer: InputAnswer): Promise<null> => call("answer_input", { id, answer });
/** Lets a server Wharf paused (it asked too many questions) ask again; true when it was paused. */
export const resumeElicitation = (server: string): Promise<boolean> => call("resume_elicitation", { server });
export const workspaceFolders = (): Promise<WorkspaceFolders> => call("workspace_folders", {});
/** The native folder picker (shown by the Rust side); null when the user cancelled. */
export const openFolderDialog = (): Promise<WorkspaceFolders | null> => call("open_folder_dialog", {});
/** Opens an existing folder by its absolute path (the Rust side accepts nothing else). */
export const openFolder = (path: string): Promise<WorkspaceFolders> => call("open_folder", { path });
export const closeFolder = (path: string): Promise<WorkspaceFolders> => call("close_folder", { path });
export const serverRoots = (server: string): Promise<ServerRoots> => call("server_roots", { server });
export const setRootsPreference = (server: string, expose: boolean): Promise<ServerRoots> =>
  call("set_roots_preference", { server, expose });
export const setPathPreference = (server: string, policy: PathArgumentPolicy): Promise<ServerRoots> =>
  call("set_path_preference", { server, policy });
export const toolPathParams = (server: string, tool: string): Promise<PathParam[]> =>
  call("tool_path_params", { server, tool });
export const samplingSettings = (): Promise<SamplingSettings> => call("sampling_settings", {});
/** Writes mcp.json's `sampling.provider` (null removes it) and uses it at once. */
export const saveSamplingProvider = (provider: ProviderInput | null): Promise<SamplingSettings> =>
  call("save_sampling_provider", { provider });
/** Stores a secret in the OS keyring. Write-only: no command reads a value back. */
export const setSecret = (name: string, value: string): Promise<null> => call("set_secret", { name, value });
export const deleteSecret = (name: string): Promise<boolean> => call("delete_secret", { name });
/** Stores a server's sampling policy for its current definition; no limits means none. */
export const setSamplingPreference = (
  server: string,
  policy: SamplingPolicy,
  limits?: SamplingLimits,
): Promise<SamplingPreferenceRow[]> => call("set_sampling_preference", { server, policy, limits: limits ?? null });
export const forgetSamplingPreference = (server: string): Promise<SamplingPreferenceRow[]> =>
  call("forget_sampling_preference", { server });
export const listResources = (server: string): Promise<ResourceCatalog> => call("list_resources", { server });
/** Reads a resource; the Rust side caps its text and keeps non-image blobs (only their size and type come here). */
export const readResource = (server: string, uri: string): Promise<ResourceView> =>
  call("read_resource", { server, uri });
/** Reads the resource again and saves its blob `index` where the user picks (native dialog); null: cancelled. */
export const saveResourceBlob = (server: string, uri: string, index: number): Promise<SavedBlob | null> =>
  call("save_resource_blob", { server, uri, index });
export const templateVariables = (template: string): Promise<TemplateVariable[]> =>
  call("template_variables", { template });
export const expandTemplate = (template: string, values: Record<string, string>): Promise<string> =>
  call("expand_template", { template, values });
export const listPrompts = (server: string): Promise<PromptCatalog> => call("list_prompts", { server });
export const getPrompt = (server: string, name: string, args: Record<string, string>): Promise<PromptView> =>
  call("get_prompt", { server, name, args });
/** Suggestions for `argument`; `context` holds the other fields (the Rust side keeps the filled ones). */
export const complete = (
  server: string,
  target: CompletionTarget,
  argument: string,
  value: string,
  context: Record<string, string>,
): Promise<Completion> => call("complete", { server, target, argument, value, context });
/** Subscribes to a resource's updates (or unsubscribes); the URIs subscribed to now. */
export const subscribeResource = (server: string, uri: string, on: boolean): Promise<string[]> =>
  call("subscribe_resource", { server, uri, on });
export const setLogLevel = (server: string, level: string): Promise<null> => call("set_log_level", { server, level });
/** The level the host keeps for the server; null: never set or cleared ("off"). */
export const logLevel = (server: string): Promise<string | null> => call("log_level", { server });
/** "off": the host forgets the level it asks the server for. */
export const clearLogLevel = (server: string): Promise<null> => call("clear_log_level", { server });
/** The configuration's `${input:ID}` values the OS keyring lacks (ids and descriptions only, never a value). */
export const missingInputs = (): Promise<MissingInput[]> => call("missing_inputs", {});
/** Stores a value for `${input:ID}` (write-only) and re-applies the configuration; the inputs still missing. */
export const provideInput = (id: string, value: string): Promise<MissingInput[]> =>
  call("provide_input", { id, value });
export const signInStatus = (): Promise<ServerSignIn[]> => call("sign_in_status", {});
/** Stops the server when it runs, then forgets its kept sign-in; true when there was one. */
export const signOut = (name: string): Promise<boolean> => call("sign_out", { name });
/** The model chat uses, or why there is none. */
export const chatStatus = (): Promise<ChatStatus> => call("chat_status", {});
/** One turn in `conversation` (null: a new one); resolves when it ends. `cancelTurn(turnId)` stops it. The
 * attachments are read through their servers when the message is sent; one that cannot be read stops the message. */
export const sendMessage = (
  turnId: string,
  conversation: string | null,
  message: string,
  attachments: Attachment[],
): Promise<TurnOutcome> => call("send_message", { turnId, conversation, message, attachments });
export const cancelTurn = (turnId: string): Promise<null> => call("cancel_turn", { turnId });
/** A new conversation that starts with the model's summary of `conversation`; `cancelTurn(turnId)` stops it. */
export const summarizeConversation = (turnId: string, conversation: string): Promise<Summarized> =>
  call("summarize_conversation", { turnId, conversation });
export const listConversations = (): Promise<ConversationSummary[]> => call("list_conversations", {});
export const searchConversations = (query: string): Promise<SearchHit[]> => call("search_conversations", { query });
export const renameConversation = (conversation: string, title: string): Promise<null> =>
  call("rename_conversation", { conversation, title });
export const deleteConversation = (conversation: string): Promise<null> =>
  call("delete_conversation", { conversation });
/** The conversation as stored; each tool call's result comes shaped by the Rust side, as a tool result's view. */
export const conversationMessages = (conversation: string): Promise<ThreadMessage[]> =>
  call("conversation_messages", { conversation });
/** The models chat's provider lists, or why it could not list them. */
export const chatModels = (): Promise<ChatModels> => call("chat_models", {});
/** Makes the chosen model the one chat uses (the Rust side writes it into mcp.json); chat's status with it. */
export const chooseChatModel = (choice: ModelChoice): Promise<ChatStatus> => call("choose_chat_model", { choice });
/** The model runtimes answering on this computer (Ollama, LM Studio, a llama.cpp server), to offer. */
export const localModels = (): Promise<LocalRuntime[]> => call("local_models", {});
/** Every tool allowed "always". */
export const listGrants = (): Promise<ToolGrant[]> => call("list_grants", {});
/** Takes back every grant of the tool; the grants left. */
export const revokeGrant = (server: string, tool: string): Promise<ToolGrant[]> =>
  call("revoke_grant", { server, tool });
/** Asks the user (the URL card) and opens a reply's link in the system browser on Accept; rejects when not opened. */
export const openLink = (url: string, conversation: string | null): Promise<null> =>
  call("open_link", { url, conversation });
/** One message a view's frame posted, as posted: what to post back to the frame, and what to do around it. */
export const viewMessage = (viewId: string, message: unknown): Promise<ViewReply> =>
  call("view_message", { viewId, message });
/** The app's theme, for every view: what each view is to be posted. */
export const setViewTheme = (theme: Theme): Promise<ViewPost[]> => call("set_view_theme", { theme });
/** A view is about to close: the request to post it, asking it to let go. */
export const closeView = (viewId: string): Promise<ViewPost> => call("close_view", { viewId });
/** The view of a model's call kept in `conversation`, opened again; null when the call's tool has none. */
export const openCallView = (conversation: string, callId: string): Promise<ViewSlot | null> =>
  call("open_call_view", { conversation, call: callId });
/** The running servers' tools that have a view. */
export const toolsWithViews = (): Promise<ToolOfServer[]> => call("tools_with_views", {});
/** The view's frame is gone: it is no longer served. */
export const forgetView = (viewId: string): Promise<boolean> => call("forget_view", { viewId });
/** The view did not reach `stage` in time: the Rust side tells the activity log, and says why. */
export const viewStalled = (viewId: string, stage: ViewStage): Promise<string> =>
  call("view_stalled", { viewId, stage });
export const smokeRendered = (rows: RenderedRow[]): Promise<null> => call("smoke_rendered", { rows });

export const onHostEvent = (handler: (event: HostEvent) => void): Promise<UnlistenFn> =>
  listen<HostEvent>("host-event", ({ payload }) => handler(payload));
export const onInputRequest = (handler: (input: PendingInput) => void): Promise<UnlistenFn> =>
  listen<PendingInput>("input-request", ({ payload }) => handler(payload));
export const onInputResolved = (handler: (resolved: InputResolved) => void): Promise<UnlistenFn> =>
  listen<InputResolved>("input-resolved", ({ payload }) => handler(payload));
