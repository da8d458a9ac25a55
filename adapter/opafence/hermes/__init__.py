"""The Hermes Agent 0.19.0 plugin: hooks, middleware, approvals and the /fence command."""
