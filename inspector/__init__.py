"""The inspector's presentation layer: theme, row model, lessons, Markdown and batch views.

Everything here turns the engine's answers (integrity.analyze, the repair
report, the kind registry) into what a page draws; it decides nothing about a
transcript itself.  `integrity` never imports this package, and only the
Streamlit helpers (inspector.ui) import Streamlit.
"""
