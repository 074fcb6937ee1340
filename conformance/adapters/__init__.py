"""How the suite reaches an implementation: in process, or a subprocess over JSON lines."""
