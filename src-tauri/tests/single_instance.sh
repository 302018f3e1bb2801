#!/usr/bin/env bash
# Single instance: with one Wharf running, a second launch (with a folder argument) hands its arguments to the first
# over D-Bus and exits at once; the first logs that it was asked to come to the front. Everything runs inside its own
# virtual display and D-Bus session, so nothing here meets a Wharf the user may be running.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=${WHARF_APP_BIN:-$repo/target/debug/wharf-app}
[ -x "$bin" ] || { echo "single-instance: no app binary at $bin"; echo "single-instance: 0 passed, 1 failed"; exit 1; }

if [ -z "${WHARF_IN_SESSION:-}" ]; then
  exec env WHARF_IN_SESSION=1 xvfb-run -a dbus-run-session -- "$0" "$@"
fi

tmp=$(mktemp -d)
first=
cleanup() {
  [ -n "$first" ] && kill "$first" 2>/dev/null && wait "$first" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "single-instance: FAIL: $*" >&2
  tail -n 20 "$tmp/first.log" >&2 || true
  echo "single-instance: 0 passed, 1 failed"
  exit 1
}

echo '{"servers": {}}' >"$tmp/mcp.json"
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache XDG_STATE_HOME=$tmp/state
mkdir -p "$HOME"
"$bin" --config "$tmp/mcp.json" >"$tmp/first.out" 2>"$tmp/first.log" &
first=$!

# The first instance owns its D-Bus name once its plugin is set up; there is no event to wait on from outside, so
# ask the bus, a bounded number of times.
name=dev.wharf.desktop.SingleInstance
owned=
for _ in $(seq 300); do
  if dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
       org.freedesktop.DBus.NameHasOwner "string:$name" 2>/dev/null | grep -q "boolean true"; then
    owned=1
    break
  fi
  kill -0 "$first" 2>/dev/null || fail "the first instance exited early"
  sleep 0.1
done
[ -n "$owned" ] || fail "the first instance never took the D-Bus name $name"

# The second launch must end by itself, successfully, quickly.
timeout 30 "$bin" --config "$tmp/mcp.json" "$tmp" >"$tmp/second.out" 2>"$tmp/second.log" \
  || fail "the second launch did not exit 0 (status $?): $(tail -n 5 "$tmp/second.log")"
kill -0 "$first" 2>/dev/null || fail "the first instance died when the second launched"

seen=
for _ in $(seq 100); do
  if grep -q "second launch: focusing the running Wharf" "$tmp/first.log" && grep -qF "$tmp" "$tmp/first.log"; then
    seen=1
    break
  fi
  sleep 0.1
done
[ -n "$seen" ] || fail "the first instance never heard of the second launch and its arguments"
echo "single-instance: 1 passed, 0 failed"
