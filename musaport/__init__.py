"""musaport: port PyTorch's CUDA sources to Moore Threads' MUSA."""

__version__ = "0.1.0"
