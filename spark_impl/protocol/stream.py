"""The ``stream`` area (placeholder until the processors land; see the module below)."""
