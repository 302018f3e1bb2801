// The window: mounts the Svelte app and connects it to the Rust side.

import "./app.css";
import { mount } from "svelte";
import App from "./components/App.svelte";
import { app } from "./lib/app";

const target = document.getElementById("app");
if (target === null) throw new Error("index.html lacks #app");
mount(App, { target });
app.start().catch((e: unknown) => app.notices.push(`The window could not connect to Wharf: ${String(e)}`));
