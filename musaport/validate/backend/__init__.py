"""``validate --backend``: the port linked against the real libtorch, a C++ driver comparing operators with the CPU."""
