"""index operators (to be filled)."""
