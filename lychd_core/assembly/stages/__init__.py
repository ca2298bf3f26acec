"""The stages of one assembly, in the order ``ContextOrchestrator.assemble`` runs them.

Each is a function with typed inputs and a typed output, testable alone:

1. ``project.project_floor``: the floor inputs become one ``Floor`` (``ProjectedFloor``);
   ``project.refuse_early`` refuses by budget first when what is known cannot fit.
2. ``rank.rank_stage``: optional Codex blocks ranked and their views planned (``RankedFloor``).
3. ``graph.build_graph``: every input a node, the required ones reserved (``BuiltGraph``).
4. ``select.select_stage``: the one selector, then the declared history trim (``Selection``).
5. ``compress.compress_selection``: compressors at their declared placement (``AssemblyCompression``).
6. ``render.render_context``: what was selected, in order, labelled (``AssembledContext``).
7. the egress gate (``lychd_core.privacy.gate.EgressGate.check``), before anything is retained.
"""
