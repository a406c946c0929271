"""3-D Secure on a charge, and the buyer's interest of an installment plan.

- :class:`AuthenticationMethod`: ``payment_method.authentication_method``.
  PagBank's own 3-D Secure names the browser SDK's result by its ``id``
  (:meth:`AuthenticationMethod.threeds`); an authentication made elsewhere
  sends the issuer's ``cavv``, ``eci`` and the rest (:meth:`AuthenticationMethod.external`).
- :class:`BuyerInterest`: ``amount.fees.buyer.interest`` of a plan from
  ``GET /charges/fees/calculate``: the charge's amount then includes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django_orderpay import rules

from ._problems import Builder, Problems, compact, is_int, join

#: The id the SDK's ``authenticate3DS`` answers: ``3DS_`` and an UUID.
THREEDS_ID_PATTERN = (
    r"3DS_[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
)
AUTHENTICATION_STATUSES = ("AUTHENTICATED", "NOT_AUTHENTICATED")
#: THREEDS (PagBank's id, or an external 3-D Secure) and INAPP (an in-app authentication).
AUTHENTICATION_TYPES = ("THREEDS", "INAPP")


@dataclass(frozen=True)
class AuthenticationMethod(Builder):
    """``payment_method.authentication_method``: ``type`` THREEDS and either an ``id`` or
    the external fields (``cavv`` and ``eci`` required); or ``type`` INAPP with ``cavv`` and
    ``eci`` (:meth:`in_app`)."""

    type: str = "THREEDS"
    id: str | None = None
    cavv: str | None = None
    eci: str | None = None
    xid: str | None = None
    version: str | None = None
    dstrans_id: str | None = None
    status: str | None = None

    @classmethod
    def threeds(cls, authentication_id: str) -> AuthenticationMethod:
        """PagBank's 3-D Secure: the ``id`` ``authenticate3DS`` resolved with."""
        return cls(id=authentication_id)

    @classmethod
    def in_app(cls, *, cavv: str, eci: str) -> AuthenticationMethod:
        """INAPP: an in-app authentication's ``cavv`` and ``eci`` (an Elo network token's)."""
        return cls(type="INAPP", cavv=cavv, eci=eci)

    @classmethod
    def external(
        cls,
        *,
        cavv: str,
        eci: str,
        xid: str | None = None,
        version: str | None = None,
        dstrans_id: str | None = None,
        status: str | None = None,
    ) -> AuthenticationMethod:
        """An authentication made by another 3-D Secure server: the issuer's values."""
        return cls(
            cavv=cavv, eci=eci, xid=xid, version=version, dstrans_id=dstrans_id, status=status
        )

    def collect(self, problems: Problems, path: str) -> None:
        problems.text(join(path, "type"), self.type, choices=AUTHENTICATION_TYPES)
        external = ("cavv", "eci", "xid", "version", "dstrans_id", "status")
        if self.type == "INAPP":
            for name in ("id", "xid", "version", "dstrans_id", "status"):
                if getattr(self, name) is not None:
                    problems.add(join(path, name), "is not sent with INAPP")
            problems.text(join(path, "cavv"), self.cavv, limit=(1, 80))
            problems.text(
                join(path, "eci"), self.eci, pattern=r"[0-9]{2}", pattern_message="must be 2 digits"
            )
            return
        if self.id is not None:
            problems.text(
                join(path, "id"),
                self.id,
                pattern=THREEDS_ID_PATTERN,
                pattern_message="must be the 3DS_ id authenticate3DS answered",
            )
            for name in external:
                if getattr(self, name) is not None:
                    problems.add(join(path, name), "is sent only without an id (external 3DS)")
            return
        problems.text(join(path, "cavv"), self.cavv, limit=(1, 64))
        problems.text(
            join(path, "eci"), self.eci, pattern=r"[0-9]{2}", pattern_message="must be 2 digits"
        )
        for name in ("xid", "dstrans_id"):
            problems.text(join(path, name), getattr(self, name), limit=(1, 64), required=False)
        problems.text(
            join(path, "version"),
            self.version,
            required=False,
            pattern=r"[0-9]+\.[0-9]+\.[0-9]+",
            pattern_message="must be a version such as 2.1.0",
        )
        problems.text(
            join(path, "status"), self.status, choices=AUTHENTICATION_STATUSES, required=False
        )

    def to_dict(self) -> dict[str, Any]:
        return compact(
            type=self.type,
            id=self.id,
            cavv=self.cavv,
            eci=self.eci,
            xid=self.xid,
            version=self.version,
            dstrans_id=self.dstrans_id,
            status=self.status,
        )


@dataclass(frozen=True)
class BuyerInterest(Builder):
    """``amount.fees.buyer.interest``: ``total`` cents of interest the buyer pays, and on how
    many ``installments``: those past the ones the merchant absorbs (PagBank's example: 8
    installments with 4 interest-free send 4; its 5x plan 1). The charge's ``amount.value``
    includes ``total``; the plan of ``GET /charges/fees/calculate`` says both."""

    total: int
    installments: int

    def collect(self, problems: Problems, path: str) -> None:
        total_path = join(path, "total")
        if not is_int(self.total) or not 0 <= self.total < rules.MAX_AMOUNT:
            problems.add(total_path, f"must be whole cents from 0 to {rules.MAX_AMOUNT - 1}")
        problems.integer(
            join(path, "installments"), self.installments, 1, rules.MAX_INSTALLMENTS_ENABLED
        )

    def to_dict(self) -> dict[str, Any]:
        return {"buyer": {"interest": {"total": self.total, "installments": self.installments}}}
