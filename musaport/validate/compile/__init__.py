"""``validate --compile``: each ported translation unit checked by clang against the MUSA shim."""
