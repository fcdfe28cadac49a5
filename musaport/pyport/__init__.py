"""Porting an extension project's own Python (its package and its tests) to the ``musa`` device.

``pack`` loads the rules (``rules/python/*.yaml``: data, with examples),
``codemod`` applies them to one file's text with LibCST (pure: text in, text,
counts and findings out), ``port`` turns that into a per-file result and
wires the project's ``.py`` files into ``musaport run --src``.
"""
