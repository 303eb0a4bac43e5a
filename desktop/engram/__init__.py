"""Engram: an offline personal assistant for the desktop that remembers."""

__version__ = "0.1.0"
