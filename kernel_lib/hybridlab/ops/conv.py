"""conv operators (to be filled)."""
