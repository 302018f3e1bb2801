#!/usr/bin/env bash
# Smoke test of the built app: starts wharf-app under Xvfb with one real stdio server (server-everything) and
# WHARF_APP_SMOKE=1, reads its stdout line by line (overall deadline, no fixed sleeps) and checks that
#  - the host reports the server "ready" on era 2025-11-25,
#  - the webview rendered the same (status and era read back from its DOM: CSP, capabilities and IPC all work),
#  - the app then exits 0 after stopping every server, and no server process is left behind.
#
# Usage: src-tauri/tests/smoke.sh          (after building the UI and `cargo build -p wharf-app`)
# Env:   WHARF_APP_BIN (default target/debug/wharf-app), WHARF_PEERS (default .peers, from scripts/deps.sh),
#        EVERYTHING_JS (server-everything's dist/index.js), NODE (default node), SMOKE_TIMEOUT seconds (default 120),
#        SMOKE_KEEP=1 keeps the temp dir (config, stdout, stderr) for debugging.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${WHARF_APP_BIN:-$repo/target/debug/wharf-app}
peers=${WHARF_PEERS:-$repo/.peers}
everything=${EVERYTHING_JS:-$peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js}
node=${NODE:-node}
timeout_s=${SMOKE_TIMEOUT:-120}

fail() {
  echo "smoke: FAIL: $*" >&2
  if [ -n "${tmp:-}" ] && [ -f "$tmp/stderr" ]; then
    echo "--- wharf-app stderr (last 40 lines) ---" >&2
    tail -n 40 "$tmp/stderr" >&2
  fi
  echo "smoke: 0 passed, 1 failed"
  exit 1
}

[ -x "$bin" ] || fail "no app binary at $bin: build the UI, then cargo build -p wharf-app"
[ -f "$everything" ] || fail "no server-everything at $everything: run scripts/deps.sh or set EVERYTHING_JS"
# JSON is handled with node, which the server needs anyway.
for tool in xvfb-run dbus-run-session setsid "$node"; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done

tmp=$(mktemp -d)
pid=
cleanup() {
  # Only our own process group: the app, Xvfb and dbus started below.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    # SIGTERM makes the app stop its servers gracefully; give it 10 s, then end the group for good.
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  if [ "${SMOKE_KEEP:-}" = 1 ]; then echo "smoke: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# The marker is in the server's environment only, so /proc/*/environ finds any server process left behind.
marker="wharf-smoke-$$-$RANDOM$RANDOM"
"$node" -e '
  const [node, js, marker] = process.argv.slice(1);
  const server = { type: "stdio", command: node, args: [js, "stdio"], env: { WHARF_SMOKE_MARKER: marker } };
  process.stdout.write(JSON.stringify({ servers: { everything: server } }));
' "$node" "$everything" "$marker" >"$tmp/mcp.json"
mkfifo "$tmp/out"

# setsid: the app, Xvfb and dbus form one process group that the deadline can end as a whole. The XDG dirs keep the
# user's era cache and config out of the test (and make the era probe run for real).
XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config" WHARF_APP_SMOKE=1 \
  setsid xvfb-run -a dbus-run-session -- "$bin" --config "$tmp/mcp.json" >"$tmp/out" 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/out"

deadline=$((SECONDS + timeout_s))
ready=
shutdown=
while :; do
  left=$((deadline - SECONDS))
  if [ "$left" -le 0 ]; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    fail "no smoke report within ${timeout_s}s"
  fi
  rc=0
  IFS= read -r -t "$left" line <&3 || rc=$?
  if [ "$rc" -gt 128 ]; then
    continue # read timed out: the deadline check above ends it
  elif [ "$rc" -ne 0 ]; then
    break # EOF: the app has exited
  fi
  echo "$line"
  case "$line" in
    '{"smoke":"ready"'*) ready=$line ;;
    '{"smoke":"shutdown"'*) shutdown=1 ;;
    '{"smoke":"timeout"'*) fail "the app gave up waiting: $line" ;;
  esac
done
exec 3<&-

status=0
wait "$pid" || status=$?
[ "$status" -eq 0 ] || fail "wharf-app exited with status $status"
[ -n "$ready" ] || fail "the app exited without a ready report"
[ -n "$shutdown" ] || fail "the app did not report its shutdown"

why=$(READY=$ready "$node" -e '
  const report = JSON.parse(process.env.READY);
  const [server] = report.servers;
  const checks = [
    ["one server, named everything", report.servers.length === 1 && server?.name === "everything"],
    ["the host reports it ready", server?.status === "ready"],
    ["it speaks era 2025-11-25", server?.era === "2025-11-25"],
    ["the window shows it ready on 2025-11-25",
      JSON.stringify(report.rendered) === JSON.stringify([{ name: "everything", status: "ready", era: "2025-11-25" }])],
  ];
  const failed = checks.filter(([, ok]) => !ok).map(([what]) => what);
  if (failed.length > 0) {
    console.log(`not true: ${failed.join("; ")}`);
    process.exit(1);
  }
') || fail "$why"

left_behind=$(grep -l -s -F "WHARF_SMOKE_MARKER=$marker" /proc/[0-9]*/environ || true)
[ -z "$left_behind" ] || fail "server processes left behind: $left_behind"

echo "smoke: 1 passed, 0 failed"
