"""The clang that checks ported code (shared: ``validate --compile``, ``musaport doctor``)."""
