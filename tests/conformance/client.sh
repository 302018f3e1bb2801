#!/bin/sh
# The client command that @modelcontextprotocol/conformance runs for each scenario. The suite splits its --command
# string on spaces (no quoting survives) and appends the scenario server's URL as the last argument, so run.sh
# passes this script's path and the real command line is built here. The suite also sets MCP_CONFORMANCE_SCENARIO
# (and MCP_CONFORMANCE_CONTEXT / MCP_CONFORMANCE_PROTOCOL_VERSION), which `wharf conformance` reads.
# WHARF_BIN: the wharf binary under test (default: the debug build of this checkout).
here=$(cd "$(dirname "$0")" && pwd)
# The auth scenarios' "browser" (see browser.sh); webbrowser runs $BROWSER with the sign-in URL.
export BROWSER="$here/browser.sh"
exec "${WHARF_BIN:-$here/../../target/debug/wharf}" conformance "$@"
