// The handlers of what the session webview posts: one per message type, in a map keyed by the type, so the
// compiler names a message without its handler. The channel (sessionViewChannel.ts) handles the handshake,
// history, pings, the view's reports and Copy itself; the rest are registered by domain where their behaviour
// lives (presentation/handlers/, or vscode/webview/handlers/ for those needing VS Code's API) and put together
// once (vscode/webview/viewHandlers.ts).

import type { HostMessage, WebviewMessage, WebviewMessageOf } from '../../shared/webviewProtocol';
import type { ViewSurface } from './viewSurface';

export type WebviewMessageType = WebviewMessage['type'];

/**
 * Handles one validated message of the view `surface`. What it returns is posted to that view (an answer under
 * the message's id); what it throws is logged and posted as an error under that id.
 */
export type ViewHandler<K extends WebviewMessageType> = (message: WebviewMessageOf<K>, surface: ViewSurface) => void | HostMessage | Promise<void | HostMessage>;

export type ViewHandlers = { [K in WebviewMessageType]: ViewHandler<K> };

/** The messages the channel handles itself: about the view and the channel, not about a session's work. */
export type ChannelMessageType = 'ready' | 'history' | 'ping' | 'error' | 'copyEntry';

/** Every other message's handler: what a surface's channel is given. */
export type IntentHandlers = Omit<ViewHandlers, ChannelMessageType>;
