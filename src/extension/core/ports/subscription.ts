// The core's event idiom as the ports speak it: `subscribe(fn)` returns a function that unsubscribes. It lives
// with the ports, the lowest room of core, so that common/ (EventHub, and what needs a Logger) can import ports/
// without ports/ importing common/ back.

export type Unsubscribe = () => void;
