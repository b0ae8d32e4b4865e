"""The game: cards, rule options and presets, codes, random streams, and the readable reference."""
