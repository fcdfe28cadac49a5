"""``validate --opinfo``: PyTorch's OpInfo samples and test files on the ported ``musa`` device."""
