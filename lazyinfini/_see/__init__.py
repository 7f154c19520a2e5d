"""Seeing a program as a picture, without graphviz.

A schedule becomes a scene (scene.py: a box per node, the edges, each box's kernel), which
collapse.py can fold to a notebook's size; layout.py places its boxes in layers, svg.py draws
it. The explain page (page.py, with details.py, plan_drawing.py, timeline.py and the inline
style and script of assets.py) and a notebook's view of an array (notebook.py) show it;
measure.py times an analyzed run.

Imported at first use (inspect.py, Array._repr_html_): `import lazyinfini` never loads it.
"""
