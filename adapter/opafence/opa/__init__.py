"""Finding, starting and talking to the local OPA."""
