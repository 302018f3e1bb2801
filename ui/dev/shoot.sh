#!/usr/bin/env bash
# Screenshots of the dev harness at 1024x768 with headless Chromium (Debian's `chromium`), for looking at the UI
# without the app:  dev/shoot.sh [OUT_DIR] [SCENE...]   (after building and starting the preview, see vite.config.ts)
# Chromium's headless window keeps 143 px for browser chrome it does not draw: a 1024x911 window has a 1024x768
# viewport, so the PNGs are 911 px high with the window's 768 on top and blank below.
# Each scene is shot in light and dark; Chromium's console (CSP violations included) goes to OUT_DIR/console.log.
set -euo pipefail
out=${1:-/tmp/wharf-shots}
shift || true
scenes=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(home tool tool-errors raw image structured links boom progress form edit import dialog elicit-form elicit-url sampling sampling-reply settings paused filter stderr workspace resources resource-image resource-blob resource-large resource-updated template prompt prompt-messages inputs input-server)
mkdir -p "$out"
curl -fsS -o /dev/null http://localhost:4180/dev/index.html || { echo "shoot: the preview is not running" >&2; exit 1; }
: >"$out/console.log"
for scene in "${scenes[@]}"; do
  for theme in light dark; do
    profile=$(mktemp -d)
    rm -f "$out/$scene-$theme.png"
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
      --disable-sync --no-first-run --user-data-dir="$profile" --window-size=1024,911 --hide-scrollbars \
      --force-prefers-reduced-motion --virtual-time-budget=4000 --enable-logging=stderr --v=0 \
      --screenshot="$out/$scene-$theme.png" "http://localhost:4180/dev/index.html?scene=$scene&theme=$theme" \
      2>>"$out/console.log" >/dev/null || echo "shoot: $scene-$theme failed" >&2
    rm -rf "$profile"
  done
done
if grep -q ":CONSOLE" "$out/console.log"; then grep ":CONSOLE" "$out/console.log"; exit 1; fi
echo "shoot: $(ls "$out"/*.png | wc -l) screenshots in $out, no console messages (no CSP violation, no error)"
