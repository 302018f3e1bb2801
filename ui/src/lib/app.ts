// The window's state and its wiring to the Rust side: one instance of each store, fed by the host's events.

import { derived, get, writable, type Readable } from "svelte/store";
import * as api from "./api";
import type { StartupReport } from "../bindings/StartupReport";
import { createActivity } from "./stores/activity";
import { createCalls } from "./stores/calls";
import { createChat, questionConversation } from "./stores/chat";
import { createPrompts, createResources } from "./stores/catalog";
import { createDialogs } from "./stores/dialogs";
import { createInputs } from "./stores/inputs";
import { createNotices } from "./stores/notices";
import { createPaused } from "./stores/paused";
import { createSelection } from "./stores/selection";
import { createServers } from "./stores/servers";
import { createSignIns } from "./stores/signins";
import { createTools } from "./stores/tools";
import { createViewer } from "./stores/viewer";
import { createLogLevels, createViews } from "./stores/views";
import { createWorkspace } from "./stores/workspace";

export type Screen = "chat" | "servers";

export function createApp() {
  const notices = createNotices();
  const report = writable<StartupReport>({ configPath: "", errors: [], warnings: [], smoke: false });
  const servers = createServers(notices);
  const signIns = createSignIns(servers, notices);
  const activity = createActivity();
  const calls = createCalls();
  const dialogs = createDialogs(notices);
  const selection = createSelection(notices);
  const tools = createTools();
  const workspace = createWorkspace(notices);
  const paused = createPaused(notices);
  const resources = createResources();
  const prompts = createPrompts();
  const viewer = createViewer();
  const views = createViews();
  const logLevels = createLogLevels(notices);
  const inputs = createInputs(notices);
  const chat = createChat(notices);
  /** The main screen: chat once a model is configured, else the servers; the user's choice from then on. */
  const screen = writable<Screen | null>(null);
  /** What the dialog host shows: every question but those shown as cards in the open chat thread. */
  const hostDialogs = derived([dialogs, chat, screen], ([$dialogs, $chat, $screen]) =>
    $dialogs.filter((q) => !($screen === "chat" && $chat.open !== null && questionConversation(q) === $chat.open)),
  );

  async function start(): Promise<void> {
    try {
      report.set(await api.startupReport());
    } catch (e) {
      notices.push(`Cannot read the startup report: ${api.toCommandError(e).message}`);
    }
    // Subscribe before the first loads, so nothing can fall between a load and the events after it.
    await Promise.all([
      api.onHostEvent((event) => {
        activity.hostEvent(event);
        servers.handleEvent(event);
        signIns.handleEvent(event);
        calls.handleEvent(event);
        tools.handleEvent(event);
        workspace.handleEvent(event);
        paused.handleEvent(event);
        resources.handleEvent(event);
        prompts.handleEvent(event);
        viewer.handleEvent(event);
        chat.handleEvent(event);
      }),
      api.onInputRequest((input) => {
        activity.inputRequest(input);
        dialogs.add(input);
        chat.handleInput(input);
      }),
      api.onInputResolved(({ id }) => dialogs.resolved(id)),
    ]);
    // The configuration's ${input:ID} values the keyring lacks are asked for once the window shows.
    await Promise.all([
      selection.load(),
      servers.refresh(),
      dialogs.load(),
      workspace.load(),
      inputs.check(),
      chat.refreshStatus(),
      chat.refreshList(),
    ]);
    if (get(screen) === null) screen.set(get(chat).status?.ready === true ? "chat" : "servers");
    // Needs the list: only HTTP servers sign in.
    await signIns.refresh();
  }

  return {
    report: { subscribe: report.subscribe } as Readable<StartupReport>,
    notices,
    servers,
    signIns,
    activity,
    calls,
    dialogs,
    selection,
    tools,
    workspace,
    paused,
    resources,
    prompts,
    viewer,
    views,
    logLevels,
    inputs,
    chat,
    screen,
    hostDialogs,
    start,
  };
}

export type App = ReturnType<typeof createApp>;

export const app: App = createApp();
