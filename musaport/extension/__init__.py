"""Porting a PyTorch extension project (``musaport run --src``): selection, includes, build files."""
