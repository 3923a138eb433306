"""Pictures of games: text diagrams (:mod:`.render`), positions and actions in words
(:mod:`.words`), SVG (:mod:`.svg`), PNG and GIF (:mod:`.images`) and the replay page
(:mod:`.html`). They read rules states and records, and know nothing above them.
"""
