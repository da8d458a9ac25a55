"""opafence: task-scoped authorization for Hermes Agent, decided by Open Policy Agent."""

__version__ = "0.1.0"
