// Built-in ACP agent process entry (see src/agent).
