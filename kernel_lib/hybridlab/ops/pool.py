"""pool operators (to be filled)."""
