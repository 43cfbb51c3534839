"""The vault's schema as the person works on it: the verbs that change it (``schema rename``,
``schema add-type``, ``schema rename-field``...) and the figures that describe it (``schema
stats``, ``schema explain``, ``schema graph --mermaid``).

It sits above ``packs/``: ``packs/`` reads and resolves a pack and is handed what it uses; this
package works on the whole vault through the brain (its store, settings and templates).
"""
