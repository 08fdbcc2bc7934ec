"""creation operators (to be filled)."""
