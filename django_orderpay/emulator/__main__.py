"""``python -m django_orderpay.emulator``: serve the emulator over HTTP until interrupted.

    python -m django_orderpay.emulator --port 8765 [--host 127.0.0.1]
        [--token TOKEN ...] [--notify-delay SECONDS] [--latency SECONDS]
        [--retain-orders N] [--state-file PATH] [--quiet]

Prints ``Emulator listening on http://HOST:PORT`` (``--port 0`` picks a free
port) and the account id of each token; Ctrl-C or SIGTERM stops it (exit 0).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from . import DEFAULT_TOKEN, Emulator
from .serving.wsgi import make_server, make_wsgi_app
from .state.retention import DEFAULT_RETAINED_ORDERS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m django_orderpay.emulator",
        description="Serve the PagBank Orders API emulator over HTTP.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=8765, help="port to bind; 0 picks a free one (default 8765)"
    )
    parser.add_argument(
        "--token",
        action="append",
        dest="tokens",
        metavar="TOKEN",
        help=f"a merchant's bearer token, one account each; repeatable (default {DEFAULT_TOKEN})",
    )
    parser.add_argument(
        "--notify-delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before each notification delivery (default 0)",
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="hold back every provider answer this long, as a real provider's (default 0)",
    )
    parser.add_argument(
        "--retain-orders",
        type=int,
        default=DEFAULT_RETAINED_ORDERS,
        metavar="N",
        help=f"remember the newest N orders, forget older (default {DEFAULT_RETAINED_ORDERS})",
    )
    parser.add_argument(
        "--state-file",
        metavar="PATH",
        help="keep the emulator's orders, charges and cards in PATH across restarts "
        "(read at start, written after each change; default: none, all in memory)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    return parser


def _shown_token(token: str) -> str:
    # The default token is public; a token someone typed may be real, so only its end shows.
    return token if token == DEFAULT_TOKEN else f"...{token[-4:]}"


class _Stop(BaseException):
    """A stop signal. Not an ``Exception``: a signal landing while the main thread
    starts a request's thread would be caught by socketserver's ``except
    Exception`` around it, printed, and the server would go on serving (CI saw
    the CLI ignore a Ctrl-C that way)."""


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def main(argv: Sequence[str] | None = None) -> int:
    """Run the emulator server; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.notify_delay < 0:
        _parser().error("--notify-delay must be 0 or more seconds")
    try:
        emulator = Emulator(
            args.tokens,
            notify_delay=args.notify_delay,
            latency=args.latency,
            retain_orders=args.retain_orders,
            state_file=args.state_file,
        )
    except ValueError as exc:
        _parser().error(str(exc))
    try:
        server = make_server(make_wsgi_app(emulator), args.host, args.port, quiet=args.quiet)
    except OSError as exc:
        emulator.close()
        print(f"Cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        # Both, explicitly: a process started in the background (``cmd &``, CI
        # runners) inherits SIGINT ignored, and Python then installs no handler.
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
        print(f"Emulator listening on {server.url}", flush=True)
        for token, account in emulator.accounts.items():
            print(f"  token {_shown_token(token)} -> account {account}", flush=True)
        if emulator.state_file is not None:
            print(f"  state kept in {emulator.state_file}", flush=True)
        print("Press Ctrl-C to stop.", flush=True)
        server.serve_forever()
    except (KeyboardInterrupt, _Stop):
        print("Emulator stopped.", flush=True)
    finally:
        server.server_close()
        emulator.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
