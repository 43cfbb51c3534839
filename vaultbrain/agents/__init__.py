"""The brain for agents: ``vaultbrain mcp``, a Model Context Protocol server over stdio.

Named ``agents`` so that it never shadows the ``mcp`` SDK it is built on. The tools
(:mod:`vaultbrain.agents.tools`) call the same core functions as the CLI commands of the
same names; :mod:`vaultbrain.agents.server` puts them behind the SDK's ``MCPServer``.
"""
