"""The release's own torch wheel: its environment and its libtorch (shared by the modes that link or run torch)."""
