// The Messages API version the agent speaks, apart from the SDK's modules so that listing models loads no SDK.

/** The API version the client pins (a literal in its `buildHeaders`, not exported). */
export const anthropicVersion = '2026-10-21';
