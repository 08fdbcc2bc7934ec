"""random operators (to be filled)."""
