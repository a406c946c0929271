"""The pictures the emulator serves: a Pix QR code (PNG), a boleto (PDF and PNG).

Drawn by small, well-kept libraries, installed with the ``emulator`` extra
(``pip install "django-orderpay[emulator]"``): segno (pure Python) for the
QR code, python-barcode for the boleto's Interleaved 2 of 5 bars, fpdf2 for
its PDF (fpdf2 brings Pillow, which python-barcode draws PNGs with). A shop
in production needs none of them: the real provider serves these files.
"""

from __future__ import annotations

import io
from importlib import import_module
from typing import Any

from ..state import errors

EXTRA = 'pip install "django-orderpay[emulator]"'


def _library(name: str) -> Any:
    try:
        return import_module(name)
    except ImportError:
        raise errors.ProviderError(
            501,
            [{"code": "NOT_IMPLEMENTED", "description": f"the emulator's images need: {EXTRA}"}],
        ) from None


def qr_code_png(text: str, *, scale: int = 6) -> bytes:
    """A QR code of ``text`` as PNG bytes (error correction M, a four-module quiet zone)."""
    segno = _library("segno")
    buffer = io.BytesIO()
    segno.make_qr(text, error="m").save(buffer, kind="png", scale=scale, border=4)
    return buffer.getvalue()


def boleto_png(code: str) -> bytes:
    """The boleto's 44-digit barcode as Interleaved 2 of 5 bars, a PNG."""
    barcode = _library("barcode")
    writer = _library("barcode.writer").ImageWriter()
    buffer = io.BytesIO()
    barcode.get("itf", code, writer=writer).write(
        buffer, options={"write_text": False, "module_height": 13.0, "quiet_zone": 6.5}
    )
    return buffer.getvalue()


def boleto_pdf(
    *, code: str, line: str, amount: int, due: str, payer: str, lines: list[str]
) -> bytes:
    """A one-page boleto: the typeable line, the amount, the due date, the payer, the bars."""
    fpdf = _library("fpdf")
    pdf = fpdf.FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 14)
    pdf.cell(0, 10, "Boleto (emulador django-orderpay)", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Courier", "B", 12)
    pdf.cell(0, 10, line, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 11)
    reais = f"R$ {amount // 100:,}".replace(",", ".") + f",{amount % 100:02d}"
    for text in (f"Valor: {reais}", f"Vencimento: {due}", f"Pagador: {payer}", *lines):
        pdf.cell(0, 7, _latin1(text), new_x="LMARGIN", new_y="NEXT")
    pdf.interleaved2of5(code, x=10, y=pdf.get_y() + 6, w=0.6, h=13)
    return bytes(pdf.output())


def _latin1(text: str) -> str:
    """The built-in PDF fonts speak Latin-1: anything else is replaced, never an error."""
    return text.encode("latin-1", "replace").decode("latin-1")
