"""The port built as torch's ``musa`` device with CMake, Ninja and ccache (shared by the modes that run torch on it)."""
