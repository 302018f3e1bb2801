#!/usr/bin/env bash
# Builds Wharf's Debian package with the Tauri bundler: the app (/usr/bin/wharf-app), the `wharf` command
# (/usr/bin/wharf), a desktop entry and the icons at every size in icons/ (generated from icons/source.svg by
# icons/generate.sh). The package is configured in the `bundle` section of src-tauri/tauri.conf.json.
# Only a .deb: AppImage tooling downloads from the internet while it builds.
#
# Usage: scripts/package.sh      prints the path of the .deb as its last line
# Env:   WHARF_PEERS (default .peers): where the pinned Tauri CLI is installed (tauri-cli/).
#
# Steps: the pinned Tauri CLI (npm package @tauri-apps/cli, a prebuilt binary; tests/package/tauri-cli pins it), the
# UI (npm ci when its lock changed, then vite build: the app embeds ui/dist when it compiles), the release binaries
# (cargo build --release -p wharf-app -p wharf-cli -p wharf-demo), then `tauri bundle --bundles deb` on those binaries.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PEERS=${WHARF_PEERS:-$ROOT/.peers}
CLI_MANIFEST=$ROOT/tests/package/tauri-cli
CLI_DIR=$PEERS/tauri-cli
UI_STAMP=$ROOT/ui/node_modules/.wharf-installed   # the same stamp as the Makefile's `ui` target

say() { printf 'package: %s\n' "$*" >&2; }
die() { printf 'package: error: %s\n' "$*" >&2; exit 1; }
started=$SECONDS

command -v npm >/dev/null || die "npm not found (scripts/deps.sh installs it)"
command -v cargo >/dev/null || die "cargo not found (install the Rust toolchain)"
# The bundler packs the .deb with dpkg-deb's format; dpkg-shlibdeps is not used.
command -v dpkg-deb >/dev/null || die "dpkg-deb not found (Debian's dpkg package)"

# 1. The Tauri CLI, reinstalled only when its pinned manifest changes (the stamp holds the manifest's hash).
hash=$(cat "$CLI_MANIFEST/package.json" "$CLI_MANIFEST/package-lock.json" | sha256sum | cut -c1-16)
if [ ! -x "$CLI_DIR/node_modules/.bin/tauri" ] || [ "$(cat "$CLI_DIR/.wharf-stamp" 2>/dev/null)" != "$hash" ]; then
  say "installing the Tauri CLI ($(grep -o '"@tauri-apps/cli": *"[^"]*"' "$CLI_MANIFEST/package.json"))"
  rm -rf "$CLI_DIR"; mkdir -p "$CLI_DIR"
  cp "$CLI_MANIFEST/package.json" "$CLI_MANIFEST/package-lock.json" "$CLI_DIR/"
  # --ignore-scripts: the binary comes in the platform package (@tauri-apps/cli-linux-x64-gnu); nothing to run.
  (cd "$CLI_DIR" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2 \
    || die "npm ci of the Tauri CLI failed"
  echo "$hash" >"$CLI_DIR/.wharf-stamp"
fi
tauri=$CLI_DIR/node_modules/.bin/tauri
say "$("$tauri" --version)"

# 2. The UI: the release binary embeds whatever ui/dist holds when it compiles, so a stale dist would ship an old
#    window. Rebuilt when any UI source is newer than the last build, and only then: a rebuild rewrites ui/dist,
#    which makes cargo compile the app again (40 s here).
if [ ! -f "$UI_STAMP" ] || [ "$ROOT/ui/package-lock.json" -nt "$UI_STAMP" ]; then
  (cd "$ROOT/ui" && npm ci --no-audit --no-fund --loglevel=error) >&2
  touch "$UI_STAMP"
fi
ui_built=$ROOT/ui/dist/index.html
if [ ! -f "$ui_built" ] || [ -n "$(find "$ROOT/ui" \( -name node_modules -o -name dist \) -prune -o -type f \
       -newer "$ui_built" -print -quit)" ] || [ "$UI_STAMP" -nt "$ui_built" ]; then
  (cd "$ROOT/ui" && npm run --silent build) >&2
else
  say "ui/dist is up to date"
fi

# 3. The release binaries. tauri.conf.json maps /usr/bin/wharf to ../target/release/wharf: the default target dir.
[ -z "${CARGO_TARGET_DIR:-}" ] || die "CARGO_TARGET_DIR is set: the bundle config expects <repo>/target"
cargo build --release -p wharf-app -p wharf-cli -p wharf-demo >&2

# 4. The .deb, from the binaries just built (`tauri bundle` does not compile; `tauri build` would, again).
#    --ci: no prompts. CI is unset for the CLI, which parses it as a boolean and rejects other spellings.
deb_dir=$ROOT/target/release/bundle/deb
rm -f "$deb_dir"/*.deb
(cd "$ROOT/src-tauri" && env -u CI "$tauri" bundle --bundles deb --ci) >&2
shopt -s nullglob
debs=("$deb_dir"/*.deb)
[ "${#debs[@]}" -eq 1 ] || die "expected one .deb in $deb_dir, found ${#debs[@]}"
say "built in $((SECONDS - started)) s"
echo "${debs[0]}"
