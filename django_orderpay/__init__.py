"""Card, Pix and boleto payments for Django shops through the PagBank Orders API."""

__version__ = "0.1.0"
