#!/usr/bin/env bash
# Package install test: installs Wharf's .deb with dpkg -i on this machine and checks what a user gets:
#  - the package is installed with its dependencies (apt-get -f install fetches missing ones from Debian),
#  - /usr/bin/wharf and /usr/bin/wharf-app run (--version), the desktop entry (category Development) names the
#    installed app and an installed icon, and the icons are there at every size in the hicolor theme,
#  - the INSTALLED app comes up under Xvfb (its own D-Bus, a temporary HOME): with WHARF_APP_SMOKE=1 it prints
#    {"smoke":"ready",...} once its window has rendered its servers, then exits 0 and leaves no process behind.
# Without an argument it builds the package first (scripts/package.sh). If the wharf package was not installed
# before, it is purged again at the end; an installed one stays (upgraded to this build).
#
# Usage: tests/package/test_deb.sh [PATH.deb]
# Env:   PACKAGE_TIMEOUT seconds for the app to come up (default 120),
#        PACKAGE_KEEP=1 keeps the package installed and the temp dir.
# Prints `package: 1 passed, 0 failed` (or `0 passed, 1 failed`) last; exits non-zero on failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
peers=${WHARF_PEERS:-$repo/.peers}
timeout_s=${PACKAGE_TIMEOUT:-120}
export DEBIAN_FRONTEND=noninteractive

tmp=
pid=
installed_here=
say() { echo "package: $*"; }
fail() {
  echo "package: FAIL: $*" >&2
  if [ -n "$tmp" ] && [ -s "$tmp/stderr" ]; then
    echo "--- wharf-app stderr (last 40 lines) ---" >&2
    tail -n 40 "$tmp/stderr" >&2
  fi
  echo "package: 0 passed, 1 failed"
  exit 1
}
cleanup() {
  # Only our own process group: the app, Xvfb and dbus started below.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || true
    # The app stops its servers on SIGTERM; 10 s for that, then the group ends for good.
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  if [ -n "$installed_here" ] && [ "${PACKAGE_KEEP:-}" != 1 ]; then
    "${SUDO[@]}" dpkg --purge wharf >/dev/null 2>&1 || echo "package: warning: could not purge wharf" >&2
  fi
  if [ -n "$tmp" ]; then
    if [ "${PACKAGE_KEEP:-}" = 1 ]; then echo "package: kept $tmp" >&2; else rm -rf "$tmp"; fi
  fi
}
trap cleanup EXIT

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || fail "dpkg -i needs root (or sudo)"
  SUDO=(sudo)
fi
for tool in dpkg apt-get xvfb-run dbus-run-session setsid; do
  command -v "$tool" >/dev/null || fail "$tool is not installed"
done
tmp=$(mktemp -d)

# 1. The package.
if [ $# -ge 1 ]; then
  deb=$1
else
  say "building the package (scripts/package.sh)"
  deb=$(bash "$repo/scripts/package.sh" | tail -n 1) || fail "scripts/package.sh failed"
fi
[ -f "$deb" ] || fail "no package at $deb"
say "testing $deb"
[ "$(dpkg-deb -f "$deb" Package)" = wharf ] || fail "$deb is not the wharf package"

# 2. Install. dpkg -i does not fetch dependencies: a missing one leaves the package unconfigured, and
#    apt-get -f install brings it (after an apt-get update, whose lists may be missing or old).
dpkg-query -W -f='${Status}' wharf 2>/dev/null | grep -q '^install ok installed$' || installed_here=1
if ! timeout 300 "${SUDO[@]}" dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1; then
  say "dpkg -i left dependencies missing; apt-get -f install"
  { timeout 600 "${SUDO[@]}" apt-get -f install -y -q || { timeout 600 "${SUDO[@]}" apt-get update -q &&
      timeout 600 "${SUDO[@]}" apt-get -f install -y -q; }; } >>"$tmp/dpkg.log" 2>&1 \
    || { tail -n 30 "$tmp/dpkg.log" >&2; fail "the package did not install"; }
fi
dpkg-query -W -f='${Status}' wharf | grep -q '^install ok installed$' || fail "wharf is not fully installed"
depends=$(dpkg-query -W -f='${Depends}' wharf)
for dep in libwebkit2gtk-4.1-0 libgtk-3-0 libssl3; do
  grep -qw -- "$dep" <<<"$depends" || fail "the package does not depend on $dep (Depends: $depends)"
done

# 3. What it installed.
files=$(dpkg -L wharf)
for path in /usr/bin/wharf /usr/bin/wharf-app /usr/share/applications/Wharf.desktop; do
  grep -qx "$path" <<<"$files" || fail "the package does not install $path"
  [ -e "$path" ] || fail "$path is missing after the install"
done
for size in 16x16 24x24 32x32 48x48 64x64 128x128 256x256 512x512; do
  icon=/usr/share/icons/hicolor/$size/apps/wharf-app.png
  grep -qx "$icon" <<<"$files" || fail "no $size icon ($icon)"
  [ "$(head -c 8 "$icon" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$icon is not a PNG"
done
cli_version=$(/usr/bin/wharf --version) || fail "/usr/bin/wharf --version failed"
app_version=$(/usr/bin/wharf-app --version) || fail "/usr/bin/wharf-app --version failed"
deb_version=$(dpkg-deb -f "$deb" Version)
[ "$cli_version" = "wharf $deb_version" ] || fail "wharf --version says '$cli_version', the package is $deb_version"
[ "$app_version" = "wharf-app $deb_version" ] || fail "wharf-app --version says '$app_version'"
say "$cli_version, $app_version"

desktop=/usr/share/applications/Wharf.desktop
entry() { sed -n "s/^$1=//p" "$desktop" | head -n 1; }
[ "$(entry Type)" = Application ] || fail "$desktop: Type is not Application"
[ "$(entry Name)" = Wharf ] || fail "$desktop: Name is '$(entry Name)'"
grep -qw Development <<<"$(entry Categories)" || fail "$desktop: Categories '$(entry Categories)' lacks Development"
exec_cmd=$(entry Exec)
exec_cmd=${exec_cmd%% *}
[ "$(command -v "$exec_cmd")" = /usr/bin/wharf-app ] || fail "$desktop: Exec '$exec_cmd' is not the installed app"
[ -f "/usr/share/icons/hicolor/128x128/apps/$(entry Icon).png" ] || fail "$desktop: Icon '$(entry Icon)' not installed"

# 4. The installed app, under Xvfb, on its first run (an empty home, no configuration): it must open its window on
# the bundled demo server (/usr/bin/wharf-demo-server) and show it ready.
marker="wharf-package-$$-$RANDOM$RANDOM"
expect=1
grep -qx /usr/bin/wharf-demo-server <<<"$files" || fail "the package does not install the demo server"
mkdir -p "$tmp/home" "$tmp/config" "$tmp/cache" "$tmp/data"
mkfifo "$tmp/out"
# setsid: the app, Xvfb and dbus form one process group that the deadline (or the cleanup) ends as a whole. The
# marker in the app's environment (and its server's) lets /proc find anything left behind.
env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" XDG_DATA_HOME="$tmp/data" \
  WHARF_PACKAGE_MARKER="$marker" WHARF_APP_SMOKE=1 \
  setsid xvfb-run -a dbus-run-session -- /usr/bin/wharf-app >"$tmp/out" 2>"$tmp/stderr" &
pid=$!
exec 3<"$tmp/out"

deadline=$((SECONDS + timeout_s))
ready=
while :; do
  left=$((deadline - SECONDS))
  if [ "$left" -le 0 ]; then
    fail "the installed app did not report ready within ${timeout_s}s"
  fi
  rc=0
  IFS= read -r -t "$left" line <&3 || rc=$?
  if [ "$rc" -gt 128 ]; then
    continue # read timed out: the deadline check above ends it
  elif [ "$rc" -ne 0 ]; then
    break # EOF: the app has exited
  fi
  case "$line" in
    '{"smoke":"ready"'*) ready=$line ;;
    '{"smoke":"timeout"'*) fail "the installed app gave up waiting: $line" ;;
  esac
done
exec 3<&-
status=0
wait "$pid" || status=$?
pid=
[ -n "$ready" ] || fail "the installed app exited (status $status) without a ready report"
[ "$status" -eq 0 ] || fail "the installed app exited with status $status"
# The report ends with what the window rendered (read back from its DOM): every configured server, ready.
rendered=${ready##*\"rendered\":}
rendered=${rendered%\}}
say "window up, rendered: $rendered"
grep -q '"name":"demo"' <<<"$rendered" || fail "the first run does not show the demo server: $rendered"
rendered_ready=$(grep -o '"status":"ready"' <<<"$rendered" | wc -l)
[ "$rendered_ready" -eq "$expect" ] || fail "the window shows $rendered_ready ready server(s), expected $expect"

# Helpers that D-Bus activated (portals, the accessibility bus) end when their bus does, a moment after the app:
# re-scan until none is left (bounded), since they are not our children and give no exit event to wait on.
marked() { grep -l -s -F "WHARF_PACKAGE_MARKER=$marker" /proc/[0-9]*/environ | cut -d/ -f3 | xargs || true; }
left_behind=$(marked)
for _ in $(seq 100); do
  [ -n "$left_behind" ] || break
  sleep 0.1
  left_behind=$(marked)
done
if [ -n "$left_behind" ]; then
  for p in $left_behind; do echo "  left: $p $(cat "/proc/$p/comm" 2>/dev/null)" >&2; done
  # shellcheck disable=SC2086  # one pid per word
  kill -KILL $left_behind 2>/dev/null || true
  fail "processes left behind after the app exited: $left_behind"
fi

echo "package: 1 passed, 0 failed"
