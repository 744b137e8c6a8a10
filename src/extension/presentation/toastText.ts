// A notice written for the session view (lines folded after the first) as the text of one VS Code notification.

/**
 * A notice's text as one notification: a toast shows it on one run of lines, so a line that ends without a full
 * stop (an agent's last stderr line) gets one before the next ("…does not exist. Open Log shows…"); bounded.
 */
export function toastText(message: string): string {
  const lines = message.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const text = lines.map((l, i) => (i < lines.length - 1 && !/[.!?:;…]$/.test(l) ? `${l}.` : l)).join(' ');
  return text.length > 1_500 ? `${text.slice(0, 1_499)}…` : text;
}
