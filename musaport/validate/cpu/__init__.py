"""The port as the CPU runtime builds it: launches made calls, ``extern __shared__`` given storage
(shared by the modes that build for the CPU: run, backend, the device)."""
