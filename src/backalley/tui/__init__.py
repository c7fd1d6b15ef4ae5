"""The terminal client: ``backalley play`` (:mod:`backalley.tui.app`) and ``backalley replay``
(:mod:`backalley.tui.replay`), built on Textual. The game itself stays in the engine; the
table (:mod:`backalley.tui.session`) seats the person and the bots and saves every action."""
