// Session webview entry (see src/webview).
