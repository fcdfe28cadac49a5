"""``validate --run``: the fixture kernels ported, built for the CPU runtime and run."""
