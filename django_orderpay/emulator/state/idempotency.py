"""``x-idempotency-key``: the first answer again for the same request, 409 for another.

Keys are scoped to the merchant (one key space per ``ACCO_`` account). The
request is compared on its method, path and canonical JSON (keys sorted,
whitespace dropped), so a client that re-serialises the same payload in
another key order still gets the stored answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from django_orderpay.emulator.serving.http import Request, Response


def canonical_body(body: bytes) -> str:
    """The body as canonical JSON, or its raw text when it is not JSON."""
    try:
        return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return body.decode("utf-8", "replace")


def fingerprint(request: Request) -> str:
    """What must match for a repeated key to count as the same request."""
    return f"{request.method.upper()} {request.path}\n{canonical_body(request.body)}"


@dataclass(frozen=True)
class Stored:
    """A remembered answer: the request it answered and the response (status, body, headers)."""

    fingerprint: str
    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]

    def response(self) -> Response:
        return Response(self.status, self.body, list(self.headers))


class IdempotencyStore:
    """Answers remembered per (account, key). Not thread-safe: the core's lock guards it."""

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str], Stored] = {}

    def lookup(self, account: str, key: str) -> Stored | None:
        """The answer stored under this merchant's key, if any."""
        return self._answers.get((account, key))

    def remember(self, account: str, key: str, request: Request, response: Response) -> None:
        """Store ``response`` as the answer to ``request`` under the key.

        Only what the provider would say is kept: adapter-level faults
        (``delay``, ``reset``) belong to the one delivery, not to the answer.
        """
        clean = replace(response, delay=0.0, reset=False)
        self._answers[(account, key)] = Stored(
            fingerprint(request), clean.status, clean.body, tuple(clean.headers)
        )

    def clear(self) -> None:
        self._answers.clear()

    def trim(self, keep: int) -> None:
        """Forget the oldest answers beyond the newest ``keep``."""
        excess = len(self._answers) - keep
        if excess > 0:
            for key in [key for key, _ in zip(self._answers, range(excess), strict=False)]:
                del self._answers[key]

    def __len__(self) -> int:
        return len(self._answers)
