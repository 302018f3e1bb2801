// The tools' views on screen (MCP Apps), by view id: each frame registers how to post to it, so that what the Rust
// side answers for all views at once (a theme change) reaches each one. No protocol here: the messages are posted as
// the Rust side wrote them.

import { writable } from "svelte/store";
import type { ViewPost } from "../bindings/ViewPost";
import type { Theme } from "../bindings/Theme";
import type { Attachment } from "../bindings/Attachment";
import { setViewTheme } from "./api";

const frames = new Map<string, (messages: unknown[]) => void>();

/** Registers a view's frame; the returned function unregisters it. */
export function registerView(viewId: string, post: (messages: unknown[]) => void): () => void {
  frames.set(viewId, post);
  return () => {
    if (frames.get(viewId) === post) frames.delete(viewId);
  };
}

/** Posts each view what the Rust side answered for it. */
export function deliver(posts: readonly ViewPost[]): void {
  for (const { viewId, post } of posts) frames.get(viewId)?.(post);
}

/** The theme the window shows now: the one the user picked, else the system's. */
export function shownTheme(root: HTMLElement = document.documentElement): Theme {
  const picked = root.dataset["theme"];
  if (picked === "light" || picked === "dark") return picked;
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-color-scheme: dark)").matches
    ? "dark"
    : "light";
}

/** Tells the Rust side (and through it every view) the theme the window shows now. */
export async function followTheme(): Promise<void> {
  try {
    deliver(await setViewTheme(shownTheme()));
  } catch {
    // A front end without views, or a window closing: there is no view to tell.
  }
}

/** A message a view in the open conversation suggests: the composer takes it as its draft, which the user still sends. */
export const suggestedDraft = writable<string | null>(null);

/** What a view in the open conversation tells the model: the composer shows it as a chip the user may remove, and it
 * goes with the next message. */
export const offeredContext = writable<Attachment | null>(null);
