"""Rendering report sections as terminal tables, plain text, Markdown or JSON, and charts."""
