"""The python `mcp` 2.3.0 client as a baseline for `wharf bench calls`, measured in its own process and connected
for the whole run; `wharf bench` drives it with one JSON line per batch on stdin:

    python py_client.py MODE stdio COMMAND [ARGS...]   |   python py_client.py MODE http URL
    (MODE: the client's `mode=`, "auto", "legacy" or "2026-07-28")
    stdout: {"ready": true, "era": "modern"|"legacy", "protocol": "..."} once connected and an echo checked,
    then per stdin line {"calls": N, "in_flight": K}: {"wall_s": ..., "latencies_us": [...]};
    any failure: {"error": "..."} and exit 1.
"""

import json
import sys
import time
import traceback

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def say(value: object) -> None:
    sys.stdout.write(json.dumps(value) + "\n")
    sys.stdout.flush()


async def echo(client: Client) -> object:
    result = await client.call_tool("echo", {"message": "hello"})
    if result.is_error:
        raise RuntimeError(f"echo answered isError: {result!r}")
    return result


async def batch(client: Client, calls: int, in_flight: int) -> dict:
    """K workers each take the next call until N are done: at most K in flight, like the Rust side's JoinSet."""
    latencies = [0.0] * calls
    next_call = 0

    async def worker() -> None:
        nonlocal next_call
        while next_call < calls:
            i = next_call
            next_call += 1
            sent = time.perf_counter()
            await echo(client)
            latencies[i] = (time.perf_counter() - sent) * 1e6

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(max(1, in_flight)):
            group.start_soon(worker)
    return {"wall_s": time.perf_counter() - start, "latencies_us": latencies}


async def main(argv: list[str]) -> int:
    mode, transport, *target = argv
    if transport == "stdio":
        server: object = StdioServerParameters(command=target[0], args=target[1:])
    elif transport == "http":
        server = target[0]
    else:
        raise ValueError(f"unknown transport {transport}")
    async with Client(server, mode=mode) as client:
        first = await echo(client)
        if "hello" not in repr(first):
            raise RuntimeError(f"echo did not echo: {first!r}")
        version = client.protocol_version
        say({"ready": True, "era": "modern" if version >= "2026" else "legacy", "protocol": version})
        while line := await anyio.to_thread.run_sync(sys.stdin.readline):
            if not line.strip():
                continue
            request = json.loads(line)
            say(await batch(client, int(request["calls"]), int(request["in_flight"])))
    return 0


if __name__ == "__main__":
    try:
        code = anyio.run(main, sys.argv[1:])
    except Exception:  # noqa: BLE001 - any failure is reported as one line to the driver
        say({"error": traceback.format_exc()})
        code = 1
    sys.exit(code)
