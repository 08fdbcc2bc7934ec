"""linalg operators (to be filled)."""
