"""norm operators (to be filled)."""
