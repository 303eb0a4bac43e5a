"""The window: PySide6 widgets over engram.core (which never imports Qt)."""
