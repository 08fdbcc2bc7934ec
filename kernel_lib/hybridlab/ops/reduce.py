"""reduce operators (to be filled)."""
