// The zod schemas the extension host needs only on first use, bundled apart as dist/schemas.js: the webview
// protocol (the first message from a view) and the entries of `vigil.mcpServers` (the first server to check).
// dist/extension.js takes these modules from here wherever it uses them (scripts/extensionBuild.cjs), so
// activation neither compiles nor runs zod. Run from the compiled sources, the modules are used directly.

export * as webviewProtocol from '../shared/webviewProtocol';
export * as mcpServerSchema from './core/acp/mcpServerSchema';
