"""Extraction: conversations → memory operations (SPEC G1–G5).

``rules.py`` is the offline extractor (English and Chinese patterns, no model); ``llm.py`` asks a
configured model for ``ADD``/``UPDATE``/``DELETE``/``NONE`` operations. Both only *propose*: the
``Memory`` facade checks every proposal with the guard and applies it through the store.
"""
