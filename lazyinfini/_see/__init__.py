"""Seeing a program as a picture: a schedule -> a scene (scene.py) -> a layout (layout.py) -> SVG
(svg.py); the explain page (page.py) and a notebook's view of an array (notebook.py) show it.

Imported at first use (inspect.py, Array._repr_html_): `import lazyinfini` never loads it.
"""
