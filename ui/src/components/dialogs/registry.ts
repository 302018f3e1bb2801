// Which dialog shows which kind of question (in the dialog host, or as a card in a chat thread); every kind without
// one gets the generic dialog.

import type { Component } from "svelte";
import type { InputKind } from "../../bindings/InputKind";
import FormDialog from "./FormDialog.svelte";
import GenericDialog from "./GenericDialog.svelte";
import PathOutsideDialog from "./PathOutsideDialog.svelte";
import SamplingDialog from "./SamplingDialog.svelte";
import UrlDialog from "./UrlDialog.svelte";
import ToolCallCard from "../chat/ToolCallCard.svelte";
import type { DialogProps } from "./types";

const registry: Partial<Record<InputKind, Component<DialogProps>>> = {
  path_outside: PathOutsideDialog,
  elicitation_form: FormDialog,
  elicitation_url: UrlDialog,
  sampling: SamplingDialog,
  tool_call: ToolCallCard,
};

export function registerDialog(kind: InputKind, component: Component<DialogProps>): void {
  registry[kind] = component;
}

export function dialogFor(kind: InputKind): Component<DialogProps> {
  return registry[kind] ?? GenericDialog;
}
