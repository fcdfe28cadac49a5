"""``musaport validate --extension``: a ported extension project compiled, built and tested on the ``musa`` device.

``run`` is the mode's work; ``compile``, ``build`` and ``tests`` its three
phases; ``trace`` leads a failure back to the port's rules and findings.
``import_child.py`` and ``pytest_plugin.py`` run by path in the torch
environment, where musaport is not installed.
"""
