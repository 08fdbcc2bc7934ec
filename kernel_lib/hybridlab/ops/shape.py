"""shape operators (to be filled)."""
