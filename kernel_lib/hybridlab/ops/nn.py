"""nn operators (to be filled)."""
